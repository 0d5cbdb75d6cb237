package io.pagemark.pipelines.cli;

import io.pagemark.dynamo.DynamoConnection;
import picocli.CommandLine.Option;

/**
 * The {@code --dynamoEndpoint=URL} and {@code --awsRegion=R} options of the commands that query DynamoDB, as a
 * picocli mixin. Neither given: AWS's endpoint of the default chain's region.
 */
public final class DynamoOptions {
  @Option(names = "--dynamoEndpoint", paramLabel = "URL",
      description = "DynamoDB endpoint, e.g. http://127.0.0.1:8000 for DynamoDB Local (default: AWS).")
  String endpoint;

  @Option(names = "--awsRegion", paramLabel = "R",
      description = "AWS region (default: the AWS chain's, else us-east-1).")
  String region;

  /** The endpoint given, or null for AWS's. */
  public String endpoint() {
    return endpoint;
  }

  /** The region given, or null for the default chain's. */
  public String region() {
    return region;
  }

  /** A connection to the DynamoDB these options name; the caller closes it. */
  public DynamoConnection connection() {
    return new DynamoConnection(endpoint, region);
  }
}
