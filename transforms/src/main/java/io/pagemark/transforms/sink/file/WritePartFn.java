package io.pagemark.transforms.sink.file;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pagemark.transforms.order.OrderGroups;
import io.pagemark.transforms.Backfill;
import io.pagemark.transforms.order.OrderedPart;

import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.EncodedRecords;
import io.pagemark.format.FileSync;
import io.pagemark.format.GroupColumns;
import io.pagemark.format.GroupFileFormat;
import io.pagemark.format.GroupFileWriter;
import io.pagemark.format.GroupHeader;
import io.pagemark.format.GroupPaths;
import io.pagemark.format.IndexRecord;
import io.pagemark.key.Json;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.io.Serializable;
import java.util.HexFormat;
import java.util.List;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TupleTag;

/**
 * Writes an ordered part into the build being written ({@link BuildOutput}): a group of one part straight to its group
 * file, encoded once from the records in memory; a part of a bigger group to a part file (its own record width, in
 * {@link BuildOutput#partFormatVersion()}: version 1 on a local disk) that {@link ConcatPartsFn} joins into the group
 * file once all parts exist. Part files are internal to the partial build and deleted before it is published.
 */
final class WritePartFn extends DoFn<OrderedPart, GroupSummary> {
  static final TupleTag<GroupSummary> GROUPS = new TupleTag<>("groups") {};
  static final TupleTag<KV<String, PartFile>> PARTS = new TupleTag<>("parts") {};

  /**
   * A written part file of a group, with the counts of its records' runs of equal sort keys and the columns learned
   * from its records while it was written (so that the join reads it once).
   */
  record PartFile(int part, int parts, String path, long entries, int width, long tieRuns, long unresolvedRuns,
      GroupColumns columns) implements Serializable {
    private static final long serialVersionUID = 1L;
  }

  private final KeySchema schema;
  private final BuildOutput output;
  private final String buildId;
  private final long buildTimeMillis;
  private final Counter groups = Metrics.counter(Backfill.METRICS, "groupsWritten");
  private final Counter entries = Metrics.counter(Backfill.METRICS, "entriesWritten");

  WritePartFn(KeySchema schema, BuildOutput output, String buildId, long buildTimeMillis) {
    this.schema = schema;
    this.output = output;
    this.buildId = buildId;
    this.buildTimeMillis = buildTimeMillis;
  }

  @ProcessElement
  public void process(@Element OrderedPart part, MultiOutputReceiver out) throws IOException {
    int width = width(part.records());
    GroupHeader header = header(schema, part.group(), width, buildId, buildTimeMillis);
    OrderedPart.TieRuns ties = part.tieRuns();
    Stats stats = new Stats(part.records().size(), ties.runs(), ties.unresolved());
    if (part.parts() == 1) {
      GroupHeader done = output.writeGroupFile(buildId, GroupPaths.relativePath(part.group()),
          file -> GroupFileWriter.write(file, header, part.records(), GroupFileFormat.defaultVersion(),
              FileSync.BY_CALLER));
      groups.inc();
      out.get(GROUPS).output(summary(part.group(), done, stats));
    } else {
      String relative = partPath(part.group(), part.part());
      GroupColumns columns = new GroupColumns(header.attributes().size());
      output.writeGroupFile(buildId, relative, file -> GroupFileWriter.write(file, header, part.records(),
          output.partFormatVersion(), FileSync.BY_CALLER, columns));
      out.get(PARTS).output(KV.of(OrderGroups.groupId(part.group()), new PartFile(part.part(), part.parts(),
          relative, part.records().size(), width, stats.tieRuns(), stats.unresolvedRuns(), columns)));
    }
    entries.inc(part.records().size());
  }

  /** The width of the widest record; records held as bytes are not decoded. */
  static int width(List<IndexRecord> records) {
    if (records instanceof EncodedRecords encoded) {
      return encoded.width();
    }
    int width = 0;
    for (IndexRecord r : records) {
      width = Math.max(width, GroupFileWriter.widthFor(r.keys()));
    }
    return width;
  }

  static GroupHeader header(KeySchema schema, KeyValue group, int width, String buildId, long buildTimeMillis) {
    return new GroupHeader(
        schema.groupAttribute(), group, schema.storedAttributes(), width, 0, buildTimeMillis, buildId, new byte[32]);
  }

  /** Where part files live inside the partial build (removed before it is published). */
  static String partPath(KeyValue group, int part) {
    String file = GroupPaths.relativePath(group);
    return "parts/" + file.substring(0, file.length() - ".pmi".length()) + String.format("/part-%05d.pmi", part);
  }

  /** Runs of equal sort keys in a sequence of records. */
  record Stats(long entries, long tieRuns, long unresolvedRuns) {
    Stats plus(Stats o) {
      return new Stats(entries + o.entries, tieRuns + o.tieRuns, unresolvedRuns + o.unresolvedRuns);
    }
  }

  static GroupSummary summary(KeyValue group, GroupHeader done, Stats stats) {
    String relative = GroupPaths.relativePath(group);
    ObjectNode manifestLine = Json.object();
    manifestLine.set("group", Json.of(group));
    String line = Json.write(manifestLine.put("file", relative).put("count", done.entryCount())
        .put("recordWidth", done.recordWidth()).put("sha256", HexFormat.of().formatHex(done.recordsSha256()))
        .put("tieRuns", stats.tieRuns()).put("tieRunsUnresolved", stats.unresolvedRuns()));
    return new GroupSummary(relative, line, done.entryCount(), stats.tieRuns(), stats.unresolvedRuns());
  }
}
