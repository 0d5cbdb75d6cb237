package io.pagemark.dynamo;

import java.io.Serializable;
import java.net.InetAddress;
import java.net.URI;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * How to reach DynamoDB: an optional endpoint (DynamoDB Local, for instance) and a region. Serializable, so that a
 * pipeline carries it to its workers, which build their own clients; it holds no credentials. With a loopback
 * endpoint and no AWS credentials configured, dummy credentials are used (DynamoDB Local checks none).
 */
public record DynamoConnection(String endpoint, String region) implements Serializable {
  private static final long serialVersionUID = 1L;
  public static final String DEFAULT_REGION = "us-east-1";

  public DynamoConnection {
    if (endpoint != null && endpoint.isBlank()) {
      endpoint = null;
    }
    if (endpoint != null) {
      URI u = URI.create(endpoint);
      if (u.getScheme() == null || u.getHost() == null) {
        throw new IllegalArgumentException(
            "DynamoDB endpoint \"" + endpoint + "\" must be a URL such as http://127.0.0.1:8000");
      }
    }
    if (region == null || region.isBlank()) {
      region = DEFAULT_REGION;
    }
  }

  /** A new client; the caller closes it. */
  public DynamoDbClient client() {
    var b =
        DynamoDbClient.builder()
            .region(Region.of(region))
            .httpClient(UrlConnectionHttpClient.create())
            .credentialsProvider(credentials());
    if (endpoint != null) {
      b.endpointOverride(URI.create(endpoint));
    }
    return b.build();
  }

  /** A new client of the table's DynamoDB Stream (same endpoint, region and credentials); the caller closes it. */
  public DynamoDbStreamsClient streamsClient() {
    var b =
        DynamoDbStreamsClient.builder()
            .region(Region.of(region))
            .httpClient(UrlConnectionHttpClient.create())
            .credentialsProvider(credentials());
    if (endpoint != null) {
      b.endpointOverride(URI.create(endpoint));
    }
    return b.build();
  }

  private AwsCredentialsProvider credentials() {
    return credentialsFor(endpoint);
  }

  /**
   * The AWS default credentials chain, except for a loopback endpoint (DynamoDB Local, kinesalite) with no
   * credentials configured: dummy ones then, since local endpoints check none.
   */
  public static AwsCredentialsProvider credentialsFor(String endpoint) {
    DefaultCredentialsProvider chain = DefaultCredentialsProvider.create();
    if (endpoint == null || !isLoopback(endpoint)) {
      return chain;
    }
    try {
      chain.resolveCredentials();
      return chain;
    } catch (SdkClientException e) {
      return StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local"));
    }
  }

  private static boolean isLoopback(String endpoint) {
    try {
      return InetAddress.getByName(URI.create(endpoint).getHost()).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }

  @Override
  public String toString() {
    return endpoint == null ? "DynamoDB in " + region : "DynamoDB at " + endpoint;
  }
}
