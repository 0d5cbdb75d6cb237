package io.pagemark.transforms.sink.file;

import io.pagemark.transforms.Backfill;

import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.GroupFile;
import io.pagemark.format.FileSync;
import io.pagemark.format.GroupColumns;
import io.pagemark.format.GroupFileFormat;
import io.pagemark.format.GroupFileWriter;
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
 * Joins the part files of a big group, in part order, into its group file ({@link GroupFileWriter#join}): the parts'
 * records are read as version-1 bytes (as they are stored, on a local disk), and the group file is encoded once,
 * with no spool, in one read of the parts: their columns were learned while they were written, in parallel.
 * The run counts of the manifest come with the parts ({@link WritePartFn.PartFile}), so no record is decoded.
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
    WritePartFn.Stats stats = new WritePartFn.Stats(0, 0, 0);
    for (WritePartFn.PartFile p : parts) {
      stats = stats.plus(new WritePartFn.Stats(p.entries(), p.tieRuns(), p.unresolvedRuns()));
    }
    // in part order, as one pass over the group would learn them
    GroupColumns learned = parts.stream().map(WritePartFn.PartFile::columns).reduce(GroupColumns::then).orElseThrow();
    List<GroupFile> files = new ArrayList<>();
    try {
      for (WritePartFn.PartFile p : parts) {
        files.add(output.openPart(buildId, p.path()));
      }
      KeyValue key = files.get(0).header().groupKey();
      GroupHeader header = WritePartFn.header(schema, key, width, buildId, buildTimeMillis);
      GroupHeader done = output.writeGroupFile(buildId, GroupPaths.relativePath(key),
          file -> GroupFileWriter.join(file, header, files, GroupFileFormat.defaultVersion(), FileSync.BY_CALLER,
              learned));
      groups.inc();
      out.output(WritePartFn.summary(key, done, stats));
    } finally {
      for (GroupFile f : files) {
        f.close();
      }
    }
  }
}
