package io.pagemark.pipelines.cli;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.transforms.BuildIndex;
import io.pagemark.transforms.order.IndexEntryCoder;
import io.pagemark.transforms.sink.file.WriteIndexFiles;
import io.pagemark.transforms.source.Segments;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;

/**
 * The training run of the class-data archive's second layer ({@code bin/pagemark}, docs/cli.md): {@code
 * ClassDataTraining [beam options...]} builds {@value #ENTRIES} generated entries in {@value #GROUPS} groups, one of
 * them split into parts, into a temporary index on the runner the options name (through {@link LocalFlink}, as the
 * batch commands run it), deletes the index and exits (0 when the build finished). It runs in a JVM of its own with
 * {@code -XX:ArchiveClassesAtExit}, so that the classes a build loads beyond the first layer's list go into the second:
 * Flink's RPC system (its own class loader, which Java 17's class lists leave out), lambdas and proxies. It reads no
 * table and writes nothing outside its temporary directory.
 */
public final class ClassDataTraining {
  static final int ENTRIES = 1_000;
  static final int GROUPS = 10;
  /** Entries of group 0, twice {@link #MAX_PART_ENTRIES}: its build goes through the hot group's split and join. */
  static final int HOT_ENTRIES = 200;
  static final int MAX_PART_ENTRIES = HOT_ENTRIES / 2;
  static final int SEGMENTS = 4;

  private ClassDataTraining() {}

  public static void main(String[] args) throws Exception {
    System.exit(train(args, Path.of(System.getProperty("java.io.tmpdir")))); // Flink may leave non-daemon threads
  }

  /** Runs the training build under a new directory in {@code parent} and deletes it; returns the exit code. */
  static int train(String[] args, Path parent) throws IOException {
    PipelineOptions options = PipelineOptionsFactory.fromArgs(args).withValidation().create();
    BeamOptions.directRunnerChecksOffUnlessGiven(List.of(args), options); // as the commands run it
    LocalFlink.configure(options);
    Path dir = Files.createTempDirectory(parent, "pagemark-class-data-");
    try {
      Pipeline p = Pipeline.create(options);
      p.apply("Segments", Segments.of(SEGMENTS))
          .apply("Entries", ParDo.of(new EntriesFn()))
          .setCoder(ListCoder.of(IndexEntryCoder.of()))
          .apply("Build index", BuildIndex.of(schema()).withSink(WriteIndexFiles.to(dir.toString()))
              .withMaxPartEntries(MAX_PART_ENTRIES).fromBatches()); // as a backfill hands over its Scan pages
      PipelineResult.State state = p.run().waitUntilFinish();
      if (state != PipelineResult.State.DONE) {
        System.err.println("pagemark: the class-data training build ended in state " + state);
        return 1;
      }
      return 0;
    } finally {
      try (Stream<Path> all = Files.walk(dir)) {
        all.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }

  /** Group {@code g-N} (string), sort key {@code SK} (string), table key {@code PK}. */
  static KeySchema schema() {
    return new KeySchema("training", "byGroup", "G", KeyType.S,
        List.of(new KeyAttribute("SK", KeyType.S, KeyAttribute.INDEX_SORT_KEY | KeyAttribute.TABLE_SORT_KEY),
            new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY)),
        "PK", "SK");
  }

  /** Entry {@code i}: group 0 for the first {@value #HOT_ENTRIES}, then the others in turn; some sort keys tie. */
  static IndexEntry entry(int i) {
    int group = i < HOT_ENTRIES ? 0 : 1 + (i - HOT_ENTRIES) % (GROUPS - 1);
    return new IndexEntry(KeyValue.ofString("g-" + group),
        List.of(KeyValue.ofString(String.format("2026-01-01T00:%02d:00Z", (i * 7) % 60)),
            KeyValue.ofString("item-" + i)));
  }

  /** The entries of one segment, as one list (a page): every {@code count}-th entry, from the segment's number. */
  static final class EntriesFn extends DoFn<Integer, List<IndexEntry>> {
    @ProcessElement
    public void process(@Element Integer segment, OutputReceiver<List<IndexEntry>> out) {
      List<IndexEntry> page = new ArrayList<>();
      for (int i = segment; i < ENTRIES; i += SEGMENTS) {
        page.add(entry(i));
      }
      out.output(page);
    }
  }
}
