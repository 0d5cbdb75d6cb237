package io.pagemark.dynamo;

import java.io.Serializable;
import java.net.InetAddress;
import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.core.client.builder.SdkSyncClientBuilder;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.retry.RetryPolicy;
import software.amazon.awssdk.core.retry.backoff.FullJitterBackoffStrategy;
import software.amazon.awssdk.core.retry.conditions.RetryCondition;
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
  /** Retries of one DynamoDB call after its first attempt (see {@link #retryPolicy}). */
  public static final int MAX_RETRIES = 9;

  public DynamoConnection {
    endpoint = checkEndpoint(endpoint, "DynamoDB", "http://127.0.0.1:8000");
    region = regionOrDefault(region);
  }

  /** A new client; the caller closes it. Throttling and transport errors are retried ({@link #retryPolicy}). */
  public DynamoDbClient client() {
    return client(() -> {});
  }

  /** As {@link #client()}, calling {@code onRetry} before each retry (a metric, say). */
  public DynamoDbClient client(Runnable onRetry) {
    return configure(DynamoDbClient.builder(), endpoint, region)
        .overrideConfiguration(c -> c.retryPolicy(retryPolicy(onRetry)))
        .build();
  }

  /** A new client of the table's DynamoDB Stream (same endpoint, region and credentials); the caller closes it. */
  public DynamoDbStreamsClient streamsClient() {
    return configure(DynamoDbStreamsClient.builder(), endpoint, region).build();
  }

  /**
   * The SDK's retry policy for long scans and queries: DynamoDB's throttling errors, 5xx answers and transport
   * failures are retried up to {@value #MAX_RETRIES} times with full-jitter exponential backoff (from 100 ms, from
   * 500 ms when throttled, at most 20 s apart), without the SDK's retry quota, which would give up on a table that
   * throttles for minutes. Anything else (a validation error, a missing table) fails at once.
   */
  public static RetryPolicy retryPolicy(Runnable onRetry) {
    RetryCondition sdkDefault = RetryCondition.defaultRetryCondition();
    return RetryPolicy.builder()
        .numRetries(MAX_RETRIES)
        .backoffStrategy(FullJitterBackoffStrategy.builder()
            .baseDelay(Duration.ofMillis(100)).maxBackoffTime(Duration.ofSeconds(20)).build())
        .throttlingBackoffStrategy(FullJitterBackoffStrategy.builder()
            .baseDelay(Duration.ofMillis(500)).maxBackoffTime(Duration.ofSeconds(20)).build())
        .retryCapacityCondition(null)
        .retryCondition(context -> {
          boolean retry = sdkDefault.shouldRetry(context);
          if (retry) {
            onRetry.run();
          }
          return retry;
        })
        .build();
  }

  /**
   * An endpoint option as a connection keeps it: null when absent or blank; an {@link IllegalArgumentException} that
   * names the service and shows an example when it is not a URL.
   */
  public static String checkEndpoint(String endpoint, String service, String example) {
    if (endpoint == null || endpoint.isBlank()) {
      return null;
    }
    URI u = URI.create(endpoint);
    if (u.getScheme() == null || u.getHost() == null) {
      throw new IllegalArgumentException(
          service + " endpoint \"" + endpoint + "\" must be a URL such as " + example);
    }
    return endpoint;
  }

  /** The region, or {@value #DEFAULT_REGION} when absent or blank. */
  public static String regionOrDefault(String region) {
    return region == null || region.isBlank() ? DEFAULT_REGION : region;
  }

  /**
   * Sets up any synchronous AWS client builder the same way: region, the URL-connection HTTP client made retryable
   * ({@link RetryableTransport}), credentials ({@link #credentialsFor}), the endpoint, if any, and
   * {@link #retryPolicy}. The SDK's default of at most three retries is not enough for S3 or Kinesis either: the JDK
   * keeps up to five idle connections per host, and a server that closed them all would use up the retries on dead
   * connections.
   */
  public static <B extends AwsClientBuilder<B, ?> & SdkSyncClientBuilder<B, ?>> B configure(
      B builder, String endpoint, String region) {
    builder.region(Region.of(region)).credentialsProvider(credentialsFor(endpoint));
    builder.httpClient(new RetryableTransport(UrlConnectionHttpClient.create()));
    builder.overrideConfiguration(c -> c.retryPolicy(retryPolicy(() -> {})));
    if (endpoint != null) {
      builder.endpointOverride(URI.create(endpoint));
    }
    return builder;
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
