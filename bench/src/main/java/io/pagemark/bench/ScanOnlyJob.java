package io.pagemark.bench;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.IndexEntry;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.transforms.Backfill;
import io.pagemark.transforms.order.IndexEntryCoder;
import io.pagemark.transforms.source.ScanSegmentFn;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTagList;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The backfill's reading alone, in a JVM of its own: {@code ScanOnlyJob ENDPOINT TABLE GSI SEGMENTS [beam
 * options...]} runs the first steps of {@link Backfill} (list the segments, spread them, {@link ScanSegmentFn}) and
 * counts the entries instead of building an index. Prints {@code RESULT seconds=... items=... entries=...}; exit code
 * 1 if the pipeline fails.
 */
public final class ScanOnlyJob {
  private ScanOnlyJob() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 4) {
      System.err.println("usage: ScanOnlyJob ENDPOINT TABLE GSI SEGMENTS [beam options...]");
      System.exit(2);
    }
    DynamoConnection connection = new DynamoConnection(args[0], null);
    int segments = Integer.parseInt(args[3]);
    KeySchema schema;
    try (DynamoDbClient client = connection.client()) {
      schema = KeySchema.describe(client, args[1], args[2]);
    }
    Pipeline p = Pipeline.create(
        PipelineOptionsFactory.fromArgs(Arrays.copyOfRange(args, 4, args.length)).withValidation().create());
    // The same steps, names and coders as Backfill.expand up to the scan.
    PCollectionTuple scanned = p
        .apply("List segments", io.pagemark.transforms.source.Segments.of(segments))
        .apply("Scan segments", ParDo.of(new ScanSegmentFn(connection, schema, segments))
            .withOutputTags(ScanSegmentFn.ENTRIES,
                TupleTagList.of(ScanSegmentFn.DEAD_LETTERS).and(ScanSegmentFn.TALLIES)));
    scanned.get(ScanSegmentFn.DEAD_LETTERS).setCoder(StringUtf8Coder.of());
    scanned.get(ScanSegmentFn.TALLIES).setCoder(KvCoder.of(StringUtf8Coder.of(), VarLongCoder.of()));
    scanned.get(ScanSegmentFn.ENTRIES).setCoder(ListCoder.of(IndexEntryCoder.of()))
        .apply("Count entries", ParDo.of(new CountFn()));

    long started = System.nanoTime();
    PipelineResult result = p.run();
    PipelineResult.State state = result.waitUntilFinish();
    double seconds = (System.nanoTime() - started) / 1e9;
    if (state != PipelineResult.State.DONE) {
      System.err.println("ScanOnlyJob: pipeline ended in state " + state);
      System.exit(1);
    }
    System.out.printf(Locale.ROOT, "RESULT seconds=%.3f items=%d entries=%d%n", seconds,
        counter(result, Backfill.METRICS, "itemsRead"), counter(result, CountFn.NAMESPACE, CountFn.NAME));
    System.exit(0); // Flink's local cluster may leave non-daemon threads behind
  }

  private static long counter(PipelineResult result, String namespace, String name) {
    long sum = 0;
    for (MetricResult<Long> c : result.metrics().queryMetrics(
        MetricsFilter.builder().addNameFilter(MetricNameFilter.named(namespace, name)).build()).getCounters()) {
      sum += c.getAttempted();
    }
    return sum;
  }

  /** Counts the entries read and drops them (chained to the scan, so they are not serialized). */
  /** Counts the entries of each Scan page's list. */
  static final class CountFn extends DoFn<List<IndexEntry>, Void> {
    static final String NAMESPACE = "bench";
    static final String NAME = "entriesCounted";
    private final Counter counted = Metrics.counter(NAMESPACE, NAME);

    @ProcessElement
    public void process(@Element List<IndexEntry> page) {
      counted.inc(page.size());
    }
  }
}
