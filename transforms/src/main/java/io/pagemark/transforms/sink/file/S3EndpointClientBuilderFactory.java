package io.pagemark.transforms.sink.file;

import io.pagemark.dynamo.DynamoConnection;
import java.net.URI;
import org.apache.beam.sdk.io.aws2.options.S3ClientBuilderFactory;
import org.apache.beam.sdk.io.aws2.options.S3Options;
import org.apache.beam.sdk.io.aws2.s3.DefaultS3ClientBuilderFactory;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * The S3 clients of Beam's S3 file system for an index's output: Beam's own configuration, with Beam's Apache HTTP
 * client named (pagemark's lookup library brings the URL-connection client, and the SDK refuses to choose between two
 * on the classpath), the {@code --s3Endpoint} with path-style addressing when given (S3-compatible stores rarely answer
 * {@code BUCKET.host} names; Beam's options have no switch for it; Beam's no-op encryption header dropped), the region
 * {@value DynamoConnection#DEFAULT_REGION} when none is configured, and dummy credentials for a loopback endpoint when
 * the AWS default chain has none. Instantiated by Beam on each worker (public, no arguments).
 */
public final class S3EndpointClientBuilderFactory implements S3ClientBuilderFactory {
  @Override
  public S3ClientBuilder createBuilder(S3Options options) {
    S3ClientBuilder b = new DefaultS3ClientBuilderFactory().createBuilder(options);
    String endpoint = options.as(S3EndpointOptions.class).getS3Endpoint();
    if (endpoint != null && !endpoint.isBlank()) {
      b.endpointOverride(URI.create(endpoint)).forcePathStyle(true)
          .credentialsProvider(DynamoConnection.credentialsFor(endpoint));
      ClientOverrideConfiguration beams = b.overrideConfiguration();
      b.overrideConfiguration((beams == null ? ClientOverrideConfiguration.builder() : beams.toBuilder())
          .addExecutionInterceptor(new NoBucketKeyHeader()).build());
    }
    if (options.getHttpClientConfiguration() == null && options.getProxyConfiguration() == null) {
      // pagemark-lookup brings the URL-connection client too: with two on the classpath the SDK picks none
      b.httpClientBuilder(ApacheHttpClient.builder());
    }
    if (options.getAwsRegion() == null) {
      b.region(Region.of(DynamoConnection.DEFAULT_REGION));
    }
    return b;
  }

  /**
   * Drops {@code x-amz-server-side-encryption-bucket-key-enabled: false}, which Beam sends with every upload: it asks
   * for nothing, but S3-compatible stores without encryption refuse any encryption header (s3proxy answers 501).
   */
  static final class NoBucketKeyHeader implements ExecutionInterceptor {
    static final String HEADER = "x-amz-server-side-encryption-bucket-key-enabled";

    @Override
    public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
      SdkHttpRequest r = context.httpRequest();
      return r.firstMatchingHeader(HEADER).filter("false"::equalsIgnoreCase).isPresent()
          ? r.toBuilder().removeHeader(HEADER).build() : r;
    }
  }
}
