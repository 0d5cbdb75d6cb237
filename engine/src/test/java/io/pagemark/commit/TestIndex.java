package io.pagemark.commit;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.BuildInfo;
import io.pagemark.format.GroupFile;
import io.pagemark.format.GroupFileWriter;
import io.pagemark.format.GroupHeader;
import io.pagemark.format.GroupPaths;
import io.pagemark.format.IndexLayout;
import io.pagemark.format.IndexRecord;
import io.pagemark.key.Json;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupNotFoundException;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.order.GroupRecords;
import io.pagemark.order.TieOrder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;

/** Test fixtures: writes a published build from entries, and reads group files back, without Beam. */
public final class TestIndex {
  /**
   * A stand-in for DynamoDB's order of equal sort keys: a fixed shuffle of the run by a hash of the keys, and another
   * one for the descending order, so that neither is a sort of the keys nor the other reversed.
   */
  public static final TieOrder FAKE_DYNAMO = (group, sortKey, run) -> new TieOrder.Resolved(
      order(run, 0x9E3779B9), order(run, 0x7F4A7C15));

  private TestIndex() {}

  private static int[] order(List<IndexEntry> run, int salt) {
    return IntStream.range(0, run.size()).boxed()
        .sorted(Comparator.comparingInt(i -> (run.get(i).keys().hashCode() * salt) ^ (salt >>> 7)))
        .mapToInt(Integer::intValue).toArray();
  }

  /** The records a fresh build writes for these entries of one group. */
  static List<IndexRecord> records(List<IndexEntry> entries, TieOrder ties) throws IOException {
    List<IndexEntry> sorted = new ArrayList<>(entries);
    sorted.sort(IndexEntry.ORDER);
    List<IndexRecord> out = new ArrayList<>();
    GroupRecords g = new GroupRecords(ties, out::add);
    for (IndexEntry e : sorted) {
      g.add(e);
    }
    g.finish();
    return out;
  }

  /** Writes and publishes a build of these groups, as a backfill would. */
  public static void writeBuild(Path root, String id, long createdAtMillis, KeySchema schema,
      Map<KeyValue, List<IndexEntry>> groups, TieOrder ties) throws IOException {
    IndexLayout layout = new IndexLayout(root);
    Path partial = layout.partialBuild(id);
    Files.createDirectories(partial);
    TreeMap<String, String> manifest = new TreeMap<>();
    long entries = 0;
    long runs = 0;
    for (Map.Entry<KeyValue, List<IndexEntry>> g : groups.entrySet()) {
      if (g.getValue().isEmpty()) {
        continue;
      }
      List<IndexRecord> records = records(g.getValue(), ties);
      int width = records.stream().mapToInt(r -> GroupFileWriter.widthFor(r.keys())).max().orElseThrow();
      GroupHeader h = new GroupHeader(schema.groupAttribute(), g.getKey(), schema.storedAttributes(), width, 0,
          createdAtMillis, id, new byte[32]);
      GroupHeader done;
      try (GroupFileWriter w = new GroupFileWriter(GroupPaths.resolve(partial, g.getKey()), h)) {
        for (IndexRecord r : records) {
          w.append(r);
        }
        done = w.finish();
      }
      long groupRuns = records.stream().filter(r -> r.tiePosition() == 0 && r.runLength() > 1).count();
      long unresolved =
          records.stream().filter(r -> r.tiePosition() == 0 && r.runLength() > 1 && !r.runOrderKnown()).count();
      String file = GroupPaths.relativePath(g.getKey());
      manifest.put(file, "{\"group\":" + g.getKey() + ",\"file\":" + Json.quote(file) + ",\"count\":" + records.size()
          + ",\"recordWidth\":" + width + ",\"sha256\":\"" + HexFormat.of().formatHex(done.recordsSha256())
          + "\",\"tieRuns\":" + groupRuns + ",\"tieRunsUnresolved\":" + unresolved + "}");
      entries += records.size();
      runs += groupRuns;
    }
    Files.write(partial.resolve(IndexLayout.MANIFEST), manifest.values(), StandardCharsets.UTF_8);
    List<BuildInfo.Attribute> attributes =
        schema.storedAttributes().stream().map(BuildInfo.Attribute::of).toList();
    BuildInfo info = new BuildInfo(1, id, createdAtMillis, schema.table(), schema.indexName(),
        schema.groupAttribute(), schema.groupType().name(), attributes,
        new BuildInfo.Counts(entries, entries, manifest.size(), 0, 0, 0, runs, 0));
    Files.writeString(partial.resolve(IndexLayout.BUILD_INFO), info.toJson());
    layout.publish(id);
  }

  /** Every record of a group in the current build, or an empty list when the build has no such group. */
  static List<IndexRecord> groupRecords(Path root, KeyValue group) throws IOException {
    try (Index index = Indexes.open(root.toString())) {
      try (GroupPages p = index.group(group)) {
        assertThat(p.count(), equalTo(p.count()));
      } catch (GroupNotFoundException e) {
        return List.of();
      }
      Path file = GroupPaths.resolve(root.resolve("builds").resolve(index.buildId()), group);
      List<IndexRecord> out = new ArrayList<>();
      try (GroupFile f = GroupFile.open(file)) {
        f.verify();
        f.forEachRecord(out::add);
      }
      return out;
    }
  }

  static String describe(List<IndexRecord> records) {
    StringBuilder b = new StringBuilder();
    for (IndexRecord r : records) {
      b.append(r.keys()).append(' ').append(r.tiePosition()).append('/').append(r.runLength())
          .append(r.runOrderKnown() ? "" : "?").append(" d").append(r.descendingSlot()).append('\n');
    }
    return b.toString();
  }

}
