package io.pagemark.transforms.sink.file;

import io.pagemark.transforms.BuildContext.ScanCounts;

import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.BuildCollector;
import io.pagemark.format.BuildInfo;
import io.pagemark.format.IndexLayout;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.io.OutputStreamWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.PCollectionView;

/**
 * The build's last step, run once after every group file and dead-letter shard is written: writes the manifest,
 * checks that every item scanned is accounted for, writes {@code build.json}, publishes the build atomically
 * ({@link BuildOutput#publish}), and removes builds older than the newest {@code keepBuilds}.
 */
final class PublishBuildFn extends DoFn<String, BuildInfo.Counts> {
  private final KeySchema schema;
  private final BuildOutput output;
  private final String buildId;
  private final long buildTimeMillis;
  private final int keepBuilds;
  private final PCollectionView<Iterable<GroupSummary>> groups;
  private final ScanCounts counts;

  PublishBuildFn(
      KeySchema schema,
      BuildOutput output,
      String buildId,
      long buildTimeMillis,
      int keepBuilds,
      PCollectionView<Iterable<GroupSummary>> groups,
      ScanCounts counts) {
    this.schema = schema;
    this.output = output;
    this.buildId = buildId;
    this.buildTimeMillis = buildTimeMillis;
    this.keepBuilds = keepBuilds;
    this.groups = groups;
    this.counts = counts;
  }

  @ProcessElement
  public void process(ProcessContext c) throws IOException {
    List<GroupSummary> summaries = new ArrayList<>();
    c.sideInput(groups).forEach(summaries::add);
    summaries.sort(Comparator.comparing(GroupSummary::file));
    long entries = 0;
    long tieRuns = 0;
    long unresolved = 0;
    try (BufferedWriter w = new BufferedWriter(new OutputStreamWriter(
        output.createText(buildId, IndexLayout.MANIFEST), StandardCharsets.UTF_8))) {
      for (GroupSummary s : summaries) {
        w.write(s.manifestLine());
        w.write('\n');
        entries += s.entries();
        tieRuns += s.tieRuns();
        unresolved += s.unresolvedRuns();
      }
    }
    BuildInfo.Counts counts = this.counts.counted(c, buildId, entries, summaries.size(), tieRuns, unresolved);
    List<BuildInfo.Attribute> attributes =
        schema.storedAttributes().stream().map(BuildInfo.Attribute::of).toList();
    BuildInfo info =
        new BuildInfo(1, buildId, buildTimeMillis, schema.table(), schema.indexName(), schema.groupAttribute(),
            schema.groupType().name(), attributes, counts);
    output.deleteParts(buildId);
    output.writeText(buildId, IndexLayout.BUILD_INFO, info.toJson()); // the build's last file
    output.publish(buildId);
    output.prune(keepBuilds, PRUNE_GRACE);
    c.output(counts);
  }

  /** Builds younger than this are never removed by a publish (readers may be pinned to them); see `pagemark gc`. */
  static final java.time.Duration PRUNE_GRACE = java.time.Duration.ofMinutes(10);

  static void deleteTree(Path dir) throws IOException {
    BuildCollector.deleteTree(dir);
  }
}
