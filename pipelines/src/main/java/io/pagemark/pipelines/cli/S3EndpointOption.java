package io.pagemark.pipelines.cli;

import io.pagemark.format.s3.S3Location;
import picocli.CommandLine.Option;

/**
 * The {@code --s3Endpoint=URL} option of the commands that read or change an index, as a picocli mixin: an
 * S3-compatible store (s3proxy, MinIO) for an {@code --index=s3://BUCKET/PREFIX}, reached with path-style addressing.
 * Without it an {@code s3://} index is read from AWS's endpoint of the region; other indexes ignore it.
 */
public final class S3EndpointOption {
  @Option(names = "--s3Endpoint", paramLabel = "URL",
      description = "S3 endpoint of an s3:// index in an S3-compatible store, e.g. http://127.0.0.1:9000 (path-style"
          + " addressing; default: AWS). Credentials and region: the AWS default chain, as for DynamoDB.")
  String s3Endpoint;

  /**
   * The index spec to open: {@code index} with {@code ?endpoint=URL} added when it is an {@code s3://} spec that has
   * none and {@code --s3Endpoint} was given; any other spec unchanged.
   *
   * @throws IllegalArgumentException for a malformed {@code s3://} spec or endpoint
   */
  public String apply(String index) {
    return S3Location.withEndpoint(index, s3Endpoint);
  }
}
