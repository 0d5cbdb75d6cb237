package io.pagemark.transforms.source;

import org.apache.beam.sdk.io.aws2.common.ClientBuilderFactory;
import org.apache.beam.sdk.io.aws2.common.ClientConfiguration;
import org.apache.beam.sdk.io.aws2.options.AwsOptions;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;

/**
 * Beam's default AWS client builder factory, except that it first turns the AWS SDK's CBOR encoding off in the JVM
 * that builds the client ({@link KinesisConnection#configureSdk()}). Named by the pipeline option
 * {@code --clientBuilderFactory}, it is instantiated wherever Beam's {@code KinesisIO} builds its client: on a Flink
 * TaskManager too, so a cluster reads a local Kinesis endpoint (kinesalite) without {@code -Daws.cborEnabled=false}
 * in its JVM options. The SDK reads that property when a client is built; JSON works with real Kinesis as well.
 */
public final class CborOffClientBuilderFactory implements ClientBuilderFactory {
  /** Public, without arguments: Beam instantiates the class named by the option. */
  public CborOffClientBuilderFactory() {}

  @Override
  public <BuilderT extends AwsClientBuilder<BuilderT, ClientT>, ClientT> BuilderT create(
      BuilderT builder, ClientConfiguration config, AwsOptions options) {
    KinesisConnection.configureSdk();
    return ClientBuilderFactory.defaultFactory().create(builder, config, options);
  }

  @Override
  public void checkConfiguration(ClientConfiguration config, AwsOptions options) {
    ClientBuilderFactory.defaultFactory().checkConfiguration(config, options);
  }
}
