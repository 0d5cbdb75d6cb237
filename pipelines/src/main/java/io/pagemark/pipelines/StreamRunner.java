package io.pagemark.pipelines;

import io.pagemark.stream.CborOffClientBuilderFactory;
import java.io.PrintStream;
import java.util.Optional;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.io.aws2.common.ClientBuilderFactory;
import org.apache.beam.sdk.io.aws2.options.AwsOptions;
import org.apache.beam.sdk.options.PipelineOptions;

/**
 * The runner settings of an unbounded pipeline that a launcher follows and stops ({@code pagemark stream}),
 * independent of what the pipeline writes. Every runner: Kinesis clients are built with CBOR off wherever they are
 * built ({@link CborOffClientBuilderFactory}), unless the options name another factory. DirectRunner: it does not
 * block in {@code run()}, and its checks of user code are off (they halve a long-running stream's throughput; the
 * transforms are tested with them on). Flink: streaming mode, submitted detached so that {@code run()} returns a
 * result whose state, counters and cancellation reach the job (in this JVM or on a cluster), polled every second;
 * for a cluster, the defaults of {@link FlinkTarget} (parallelism = slots, the job jar staged).
 */
final class StreamRunner {
  private StreamRunner() {}

  /** Completes the options for their runner; returns the Flink target when the runner is Flink. */
  static Optional<FlinkTarget> configure(PipelineOptions options, PrintStream progress) {
    AwsOptions aws = options.as(AwsOptions.class);
    if (aws.getClientBuilderFactory() == null
        || aws.getClientBuilderFactory().equals(ClientBuilderFactory.DefaultClientBuilder.class)) {
      aws.setClientBuilderFactory(CborOffClientBuilderFactory.class);
    }
    DirectOptions direct = options.as(DirectOptions.class);
    direct.setBlockOnRun(false);
    direct.setEnforceImmutability(false);
    direct.setEnforceEncodability(false);
    Optional<FlinkTarget> target = FlinkTarget.prepare(options, progress, "pagemark stream");
    if (target.isPresent()) {
      FlinkPipelineOptions flink = options.as(FlinkPipelineOptions.class);
      flink.setStreaming(true);
      flink.setAttachedMode(false);
      flink.setJobCheckIntervalInSecs(1);
    }
    return target;
  }
}
