package io.pagemark.testing;

import java.io.IOException;

/**
 * JUnit 5: one chromedriver for the test JVM ({@code @ExtendWith(ChromiumExtension.class)}, then a parameter
 * {@code Chromium chromium}), with Debian's chromium and chromium-driver installed before its first start when missing
 * (as root), checked before each test and restarted when it died, on the same port when it can. Each test starts its
 * own browser session with a profile from {@link Chromium#newProfile()} and quits it. Logs:
 * {@code target/services/chromedriver-N.log}.
 */
public final class ChromiumExtension extends ServiceExtension<Chromium> {
  private static final SharedService<Chromium> SHARED = SharedService.of("chromedriver", Chromium::start);

  public ChromiumExtension() {
    super(Chromium.class, SHARED);
  }

  /** The JVM's chromedriver, started or restarted as needed: for helpers that are not handed it. */
  public static Chromium get() throws IOException {
    return SHARED.get();
  }
}
