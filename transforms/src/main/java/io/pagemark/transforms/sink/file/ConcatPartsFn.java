package io.pagemark.transforms.sink.file;

import io.pagemark.transforms.Backfill;

import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.GroupFile;
import io.pagemark.format.GroupHeader;
import io.pagemark.format.GroupPaths;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;

/**
 * Joins the part files of a big group, in part order, into its group file: one sequential pass, with records widened
 * to the group's widest part (padding is zeros, so widening changes nothing else). Memory use is one read block.
 */
final class ConcatPartsFn extends DoFn<KV<String, Iterable<WritePartFn.PartFile>>, GroupSummary> {
  private final KeySchema schema;
  private final BuildOutput output;
  private final String buildId;
  private final long buildTimeMillis;
  private final Counter groups = Metrics.counter(Backfill.METRICS, "groupsWritten");

  ConcatPartsFn(KeySchema schema, BuildOutput output, String buildId, long buildTimeMillis) {
    this.schema = schema;
    this.output = output;
    this.buildId = buildId;
    this.buildTimeMillis = buildTimeMillis;
  }

  @ProcessElement
  public void process(@Element KV<String, Iterable<WritePartFn.PartFile>> group, OutputReceiver<GroupSummary> out)
      throws IOException {
    List<WritePartFn.PartFile> parts = new ArrayList<>();
    group.getValue().forEach(parts::add);
    parts.sort(Comparator.comparingInt(WritePartFn.PartFile::part));
    int expected = parts.get(0).parts();
    for (int i = 0; i < parts.size(); i++) {
      if (parts.get(i).part() != i || parts.size() != expected) {
        throw new IllegalStateException(
            "group " + group.getKey() + " has parts " + parts + ", expected 0.." + (expected - 1));
      }
    }
    int width = parts.stream().mapToInt(WritePartFn.PartFile::width).max().orElseThrow();
    KeyValue key;
    try (GroupFile first = output.openPart(buildId, parts.get(0).path())) {
      key = first.header().groupKey();
    }
    long[] counts = new long[3];
    GroupHeader done = output.writeGroupFile(buildId, GroupPaths.relativePath(key),
        WritePartFn.header(schema, key, width, buildId, buildTimeMillis), w -> {
          for (WritePartFn.PartFile p : parts) {
            try (GroupFile f = output.openPart(buildId, p.path())) {
              f.forEachRecord(r -> {
                w.append(r);
                counts[0]++;
                if (r.tiePosition() == 0 && r.runLength() > 1) {
                  counts[1]++;
                  counts[2] += r.runOrderKnown() ? 0 : 1;
                }
              });
            }
          }
        });
    groups.inc();
    out.output(WritePartFn.summary(key, done, new WritePartFn.Stats(counts[0], counts[1], counts[2])));
  }
}
