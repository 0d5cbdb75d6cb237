package io.pagemark.transforms.sink.file;

import org.apache.beam.sdk.io.aws2.options.S3Options;
import org.apache.beam.sdk.options.Description;

/**
 * Options of a pipeline that writes an index to S3 ({@code --output=s3://BUCKET/PREFIX}) through Beam's S3 file
 * system: {@code --s3Endpoint} for an S3-compatible store, which {@link S3EndpointClientBuilderFactory} (set with
 * {@link #useS3Endpoint}) reaches with path-style addressing. Region and credentials are Beam's {@code --awsRegion}
 * and the AWS default chain.
 */
public interface S3EndpointOptions extends S3Options {
  @Description("S3 endpoint URL for an S3-compatible store (path-style addressing), e.g. http://127.0.0.1:9000;"
      + " default: AWS's endpoint of --awsRegion.")
  String getS3Endpoint();

  void setS3Endpoint(String value);

  /**
   * Makes Beam's S3 file system build its clients with {@link S3EndpointClientBuilderFactory} (so with
   * {@code --s3Endpoint} when given), unless {@code --s3ClientFactoryClass} names another factory.
   *
   * @throws IllegalArgumentException if {@code --s3Endpoint} is not a URL
   */
  static void useS3Endpoint(S3EndpointOptions options) {
    io.pagemark.dynamo.DynamoConnection.checkEndpoint(options.getS3Endpoint(), "S3", "http://127.0.0.1:9000");
    if (options.getS3ClientFactoryClass() == null
        || options.getS3ClientFactoryClass() == org.apache.beam.sdk.io.aws2.s3.DefaultS3ClientBuilderFactory.class) {
      options.setS3ClientFactoryClass(S3EndpointClientBuilderFactory.class);
    }
  }
}
