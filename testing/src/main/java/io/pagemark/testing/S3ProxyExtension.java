package io.pagemark.testing;

import java.io.IOException;

/**
 * JUnit 5: one s3proxy for the test JVM ({@code @ExtendWith(S3ProxyExtension.class)}, then a parameter
 * {@code S3Proxy s3}), checked before each test and restarted when it died, on the same port when it can. A restarted
 * s3proxy is empty: buckets made before are gone. Tests share it: each works in buckets of its own. Logs:
 * {@code target/services/s3proxy-N.log}.
 */
public final class S3ProxyExtension extends ServiceExtension<S3Proxy> {
  private static final SharedService<S3Proxy> SHARED = SharedService.of("s3proxy", S3Proxy::start);

  public S3ProxyExtension() {
    super(S3Proxy.class, SHARED);
  }

  /** The JVM's s3proxy, started or restarted as needed: for helpers that are not handed it. */
  public static S3Proxy get() throws IOException {
    return SHARED.get();
  }
}
