package io.pagemark.transforms.source;

import io.pagemark.dynamo.DynamoConnection;
import java.io.Serializable;
import java.net.URI;
import org.apache.beam.sdk.io.aws2.common.ClientConfiguration;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * How to reach Kinesis: an optional endpoint (kinesalite, for instance) and a region. Serializable and free of
 * credentials; with a loopback endpoint and no AWS credentials configured, dummy credentials are used. Creating a
 * client turns the AWS SDK's CBOR encoding off (JVM property {@code aws.cborEnabled=false}) unless the property is
 * already set: local Kinesis endpoints answer CBOR requests with timestamps the SDK cannot parse, and real Kinesis
 * accepts JSON as well.
 */
public record KinesisConnection(String endpoint, String region) implements Serializable {
  private static final long serialVersionUID = 1L;
  public static final String DEFAULT_REGION = DynamoConnection.DEFAULT_REGION;
  static final String CBOR_PROPERTY = "aws.cborEnabled";
  static final String HTTP_PROPERTY = "software.amazon.awssdk.http.service.impl";

  public KinesisConnection {
    endpoint = DynamoConnection.checkEndpoint(endpoint, "Kinesis", "http://127.0.0.1:4567");
    region = DynamoConnection.regionOrDefault(region);
  }

  /**
   * Sets, unless already set: {@code aws.cborEnabled=false} and the default synchronous HTTP implementation (the
   * URL-connection client). Idempotent; call before the first Kinesis client of the JVM is built.
   */
  public static void configureSdk() {
    if (System.getProperty(CBOR_PROPERTY) == null) {
      System.setProperty(CBOR_PROPERTY, "false");
    }
    if (System.getProperty(HTTP_PROPERTY) == null) {
      System.setProperty(HTTP_PROPERTY, "software.amazon.awssdk.http.urlconnection.UrlConnectionSdkHttpService");
    }
  }

  /** A new synchronous client; the caller closes it. */
  public KinesisClient client() {
    configureSdk();
    return DynamoConnection.configure(KinesisClient.builder(), endpoint, region).build();
  }

  /** The same connection as Beam's aws2 IOs take it ({@code KinesisIO.read().withClientConfiguration}). */
  public ClientConfiguration clientConfiguration() {
    configureSdk();
    return ClientConfiguration.create(credentials(), Region.of(region), endpoint == null ? null : URI.create(endpoint));
  }

  private AwsCredentialsProvider credentials() {
    return DynamoConnection.credentialsFor(endpoint);
  }

  @Override
  public String toString() {
    return endpoint == null ? "Kinesis in " + region : "Kinesis at " + endpoint;
  }
}
