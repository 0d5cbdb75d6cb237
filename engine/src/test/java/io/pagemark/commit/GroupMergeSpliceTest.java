package io.pagemark.commit;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.pagemark.change.IndexChange;
import io.pagemark.change.Version;
import io.pagemark.dynamo.IndexEntry;
import io.pagemark.format.GroupFile;
import io.pagemark.format.GroupFileWriter;
import io.pagemark.format.GroupHeader;
import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.order.TieOrder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A commit that splices a version-2 group file (copies the records it keeps as they are encoded) writes the very
 * bytes of a full rewrite, and of a fresh build of the same entries: random groups of several column shapes, with
 * runs of equal sort keys (in the tie table and inline), deletes, inserts below, inside and above the group, moves
 * and additions to runs; changes that do not fit the base's codecs fall back to the full rewrite.
 */
class GroupMergeSpliceTest {
  static final KeyValue GROUP = KeyValue.ofString("g");
  static final long T0 = 1_700_000_000_000_000L;

  /** One column shape of a group: the sort key's and the partition key's values of item i, and attributes. */
  record Shape(String name, KeyType sortType, Function<Random, KeyValue> sortKey, Function<Long, KeyValue> pk) {}

  static final List<Shape> SHAPES = List.of(
      // demo comments: DATETIME_S sort keys, DIGITS ids after a shared prefix
      new Shape("datetime+digits", KeyType.S,
          r -> KeyValue.ofString(Instant.ofEpochSecond(1_741_000_000L + r.nextInt(400)).toString()),
          i -> KeyValue.ofString(String.format("comment-%07d", i))),
      // DIGITS sort keys (type N), ALPHA64 ids
      new Shape("number+alpha64", KeyType.N, r -> KeyValue.ofNumber(Integer.toString(1000 + r.nextInt(300))),
          i -> KeyValue.ofString(alpha(i))),
      // FIXED sort keys with a shared prefix, VAR ids of any UTF-8
      new Shape("fixed+var", KeyType.S, r -> KeyValue.ofString("k/" + (char) ('a' + r.nextInt(20)) + "\u00e9"),
          i -> KeyValue.ofString("item-" + "\u4e2d".repeat((int) (i % 3)) + i)));

  static String alpha(long i) {
    String s = "ABCDEFGHabcdefgh01234567-_xyzXYZ";
    StringBuilder b = new StringBuilder();
    long x = i * 2654435761L;
    for (int j = 0; j < 8; j++) {
      b.append(s.charAt((int) ((x >>> (5 * j)) & 31)));
    }
    return b.toString();
  }

  static final List<KeyAttribute> ATTRIBUTES_S = List.of(new KeyAttribute("SK", KeyType.S, KeyAttribute.INDEX_SORT_KEY),
      new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY));
  static final List<KeyAttribute> ATTRIBUTES_N = List.of(new KeyAttribute("SK", KeyType.N, KeyAttribute.INDEX_SORT_KEY),
      new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY));

  @Test
  void aSpliceWritesTheBytesOfAFullRewriteAndOfAFreshBuild(@TempDir Path dir) throws IOException {
    int spliced = 0;
    int rewritten = 0;
    for (int seed = 0; seed < 150; seed++) {
      boolean s = check(dir, seed);
      spliced += s ? 1 : 0;
      rewritten += s ? 0 : 1;
    }
    // both paths are exercised: most commits fit the codecs, some do not
    System.out.printf("GroupMergeSpliceTest: %d commits spliced, %d rewritten in full%n", spliced, rewritten);
    assertThat(spliced, greaterThan(75));
    assertThat(rewritten, greaterThan(10));
  }

  /** One random base and commit; returns whether the commit was spliced. */
  private static boolean check(Path dir, int seed) throws IOException {
    Random r = new Random(seed);
    Shape shape = SHAPES.get(seed % SHAPES.size());
    List<KeyAttribute> attributes = shape.sortType() == KeyType.N ? ATTRIBUTES_N : ATTRIBUTES_S;
    TieOrder ties = seed % 5 == 4 ? TieOrder.UNKNOWN : TestIndex.FAKE_DYNAMO;
    int n = 1 + r.nextInt(seed % 7 == 0 ? 20 : 1500);
    // a narrow range of sort keys makes long runs: with it most entries are tied and the tie fields stay inline
    Function<Random, KeyValue> sortKeys = seed % 6 == 1 ? x -> shape.sortKey().apply(new Random(x.nextInt(3)))
        : shape.sortKey();
    Map<Long, List<KeyValue>> items = new HashMap<>();
    long firstItem = 1000 + r.nextInt(1000);
    for (long i = firstItem; i < firstItem + n; i++) {
      items.put(i, List.of(sortKeys.apply(r), shape.pk().apply(i)));
    }
    Path base = dir.resolve("base-" + seed + ".pmi");
    write(base, attributes, items.values(), ties, "base");

    List<IndexChange> changes = new ArrayList<>();
    Map<Long, List<KeyValue>> after = new HashMap<>(items);
    List<Long> ids = new ArrayList<>(items.keySet());
    java.util.Collections.sort(ids);
    // outside the base's ids (a new DIGITS span, a wider VAR suffix) the codecs may not fit: the full rewrite
    boolean widen = r.nextInt(4) == 0;
    int k = 1 + r.nextInt(Math.max(1, Math.min(60, n)));
    long time = T0;
    for (int c = 0; c < k; c++) {
      int what = r.nextInt(5);
      long item = ids.get(r.nextInt(ids.size()));
      if (what == 0 && after.containsKey(item)) { // delete
        changes.add(new IndexChange(GROUP, List.of(shape.pk().apply(item)), new Version(++time, ""),
            after.remove(item), null));
      } else if (what == 1 && after.containsKey(item)) { // move to another sort key
        List<KeyValue> to = List.of(sortKeys.apply(r), shape.pk().apply(item));
        if (!to.equals(after.get(item))) {
          changes.add(new IndexChange(GROUP, List.of(shape.pk().apply(item)), new Version(++time, ""),
              after.put(item, to), to));
        }
      } else { // insert a new item: inside the group's ids, or beyond them when widening
        long id = widen ? firstItem + n + 100_000 + r.nextInt(1_000_000) : firstItem + r.nextInt(n);
        if (after.containsKey(id) || items.containsKey(id)) {
          continue;
        }
        KeyValue sk = what == 2 ? after.values().stream().findAny().map(v -> v.get(0)).orElse(sortKeys.apply(r))
            : sortKeys.apply(r); // join a run, or anywhere
        List<KeyValue> to = List.of(sk, shape.pk().apply(id));
        after.put(id, to);
        changes.add(new IndexChange(GROUP, List.of(shape.pk().apply(id)), new Version(++time, ""), null, to));
      }
    }
    if (r.nextInt(3) == 0) { // inserts at both ends of the group: into its first and its last run
      List<KeyValue> sorted = items.values().stream().map(v -> v.get(0)).sorted().toList();
      for (KeyValue sk : List.of(sorted.get(0), sorted.get(sorted.size() - 1))) {
        long id = firstItem - 1 - r.nextInt((int) Math.min(firstItem - 1, 500)); // below the ids: fits some codecs
        if (!after.containsKey(id)) {
          List<KeyValue> to = List.of(sk, shape.pk().apply(id));
          after.put(id, to);
          changes.add(new IndexChange(GROUP, List.of(shape.pk().apply(id)), new Version(++time, ""), null, to));
        }
      }
    }

    GroupHeader template = new GroupHeader("G", GROUP, attributes, 0, 0, 1_750_000_000_000L, "next", new byte[32]);
    Path a = dir.resolve("spliced-" + seed + ".pmi");
    Path b = dir.resolve("rewritten-" + seed + ".pmi");
    GroupMerge.Result ra;
    GroupMerge.Result rb;
    try (GroupFile f = GroupFile.open(base)) {
      ra = GroupMerge.merge(f, 0, 0, changes, new VersionLedger(T0), ties, template, a, true);
      rb = GroupMerge.merge(f, 0, 0, changes, new VersionLedger(T0), ties, template, b, false);
    }
    String where = "seed " + seed + " (" + shape.name() + ", " + n + " entries, " + changes.size() + " changes)";
    assertThat(where, rb.spliced(), is(false));
    assertThat(where, ra.entries(), is(rb.entries()));
    assertThat(where, ra.tieRuns(), is(rb.tieRuns()));
    assertThat(where, ra.runsRebuilt(), is(rb.runsRebuilt()));
    assertThat(where, Files.exists(a), is(Files.exists(b)));
    if (!Files.exists(a)) {
      return ra.spliced();
    }
    assertArrayEquals(Files.readAllBytes(b), Files.readAllBytes(a), where);
    try (GroupFile f = GroupFile.open(a)) {
      f.verify();
    }
    if (ties != TieOrder.UNKNOWN) { // with DynamoDB's order known, a commit equals a fresh build of the table
      Path fresh = dir.resolve("fresh-" + seed + ".pmi");
      write(fresh, attributes, after.values(), ties, "next");
      assertArrayEquals(Files.readAllBytes(fresh), Files.readAllBytes(a), where + ", fresh build");
      Files.delete(fresh);
    }
    for (Path p : List.of(base, a, b)) {
      Files.deleteIfExists(p);
    }
    return ra.spliced();
  }

  /** A group file of these entries, as a backfill writes it. */
  private static void write(Path file, List<KeyAttribute> attributes, Iterable<List<KeyValue>> entries,
      TieOrder ties, String buildId) throws IOException {
    List<IndexEntry> list = new ArrayList<>();
    entries.forEach(e -> list.add(new IndexEntry(GROUP, e)));
    List<IndexRecord> records = TestIndex.records(list, ties);
    int width = records.stream().mapToInt(x -> GroupFileWriter.widthFor(x.keys())).max().orElse(16);
    GroupHeader h = new GroupHeader("G", GROUP, attributes, width, 0,
        buildId.equals("base") ? 1_740_000_000_000L : 1_750_000_000_000L, buildId, new byte[32]);
    try (GroupFileWriter w = new GroupFileWriter(file, h)) {
      for (IndexRecord x : records) {
        w.append(x);
      }
      w.finish();
    }
  }
}
