package io.pagemark.bench;

import io.pagemark.format.GroupFile;
import io.pagemark.format.GroupFileFormat;
import io.pagemark.format.GroupFileWriter;
import io.pagemark.format.GroupHeader;
import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageStart;
import io.pagemark.lookup.RankedGroup;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Group file format version 2 against version 1 (docs/format-v2.md), on the same entries in the same run:
 *
 * <ul>
 *   <li>bytes per entry of the demo comments' deep group as the backfill wrote it (version 2) against the same
 *       entries written as version 1;
 *   <li>bytes per entry of the seed's shape (a 24-character random {@code PK}, an ISO datetime {@code SK} as text,
 *       the sort key's ties as in the demo) against the raw bytes of its keys;
 *   <li>rank lookup p50 and p99 ({@link GroupPages#pageStart} of a random page, warm page cache) on the version-2
 *       file against the version-1 copy, timed in alternating rounds so both see the same machine load.
 * </ul>
 */
final class FormatVersions implements Bench {
  static final String DEMO = "group file bytes per entry, format v2 vs v1 of the same demo comments";
  static final String SEED = "group file v2 bytes per entry, seed shape (24-char PK, datetime SK) vs raw key bytes";

  static String lookup(String percentile) {
    return "rank lookup " + percentile + ", file format v2 vs v1 of the same group, warm";
  }

  @Override
  public String id() {
    return "format-v2";
  }

  @Override
  public List<String> figures(Sizes sizes) {
    return List.of(DEMO, SEED, lookup("p50"), lookup("p99"));
  }

  @Override
  public void run(Sizes sizes, Context context) throws Exception {
    CommentsFixture table = context.comments();
    Path v2 = LookupLatency.groupFile(table);
    Path v1 = context.dir("format-v2").resolve("v1.pmi");
    int items = table.items();
    try (GroupFile f = GroupFile.open(v2)) {
      if (f.formatVersion() != GroupFileFormat.VERSION_2) {
        throw new IllegalStateException(v2 + " is of format version " + f.formatVersion() + ", expected 2");
      }
      GroupHeader h = f.header();
      try (GroupFileWriter w = new GroupFileWriter(v1, new GroupHeader(h.groupAttribute(), h.groupKey(),
          h.attributes(), f.unpackedRecordWidth(), 0, h.buildTimeMillis(), h.buildId(), new byte[32]),
          GroupFileFormat.VERSION_1)) {
        f.forEachRecord(w::append);
        w.finish();
      }
    }
    double v2PerEntry = Files.size(v2) / (double) items;
    double v1PerEntry = Files.size(v1) / (double) items;
    context.report(new Figure(DEMO, v2PerEntry, "bytes", "format v1 of the same entries", v1PerEntry, "bytes",
        String.format("the deep group of %,d demo comments as the backfill wrote it (v2) and copied as v1; raw key"
            + " bytes %.1f an entry, v2 is %.2fx of them", items, v2PerEntry,
            table.rawKeyBytes() / (double) items, v2PerEntry / (table.rawKeyBytes() / (double) items))));

    seedShape(sizes, context);

    Samples s1 = new Samples(sizes.warmLookups());
    Samples s2 = new Samples(sizes.warmLookups());
    Random random = new Random(18);
    try (GroupFile f1 = GroupFile.open(v1);
        GroupFile f2 = GroupFile.open(v2);
        GroupPages g1 = new GroupPages(ranked(f1));
        GroupPages g2 = new GroupPages(ranked(f2))) {
      long pages = g2.pages(Sizes.PAGE_SIZE);
      long sink = 0;
      for (int i = 0; i < sizes.warmLookups(); i++) { // warm-up of both
        long page = 1 + random.nextInt((int) pages);
        sink += lookup(g1, page) + lookup(g2, page);
      }
      int round = 500;
      for (int done = 0; done < sizes.warmLookups(); done += round) {
        long[] batch = new long[Math.min(round, sizes.warmLookups() - done)];
        for (int i = 0; i < batch.length; i++) {
          batch[i] = 1 + random.nextInt((int) pages);
        }
        for (int pass = 0; pass < 2; pass++) { // v1 first in even rounds, v2 first in odd ones
          boolean v1First = (done / round) % 2 == 0;
          GroupPages g = (pass == 0) == v1First ? g1 : g2;
          Samples s = g == g1 ? s1 : s2;
          for (long page : batch) {
            long t0 = System.nanoTime();
            sink += lookup(g, page);
            s.add(System.nanoTime() - t0);
          }
        }
      }
      if (sink == 42) {
        context.progress().println();
      }
      String note = String.format("%,d lookups of random pages of %,d (page size %d) on each file, in alternating"
          + " rounds of %d after %,d warm-up lookups; v2 %,d bytes, v1 %,d bytes", s2.count(), pages,
          Sizes.PAGE_SIZE, round, sizes.warmLookups(), Files.size(v2), Files.size(v1));
      for (String p : List.of("p50", "p99")) {
        double q = Double.parseDouble(p.substring(1));
        context.report(new Figure(lookup(p), s2.percentileMicros(q), "us", "the same lookup on format v1",
            s1.percentileMicros(q), "us", note));
      }
    }
  }

  /** Writes the seed's shape as a version-2 (and, for the note, a version-1) group file. */
  private static void seedShape(Sizes sizes, Context context) throws IOException {
    int n = Math.max(20_000, sizes.deepItems());
    Random r = new Random(2018);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    Instant base = Instant.parse("2024-01-01T00:00:00Z");
    List<String> times = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      times.add(base.plusSeconds(r.nextInt(90_000_000)).toString());
    }
    for (int i = 1; i < n; i++) { // bulk imports: one entry in a hundred shares the previous entry's time
      if (r.nextInt(100) == 0) {
        times.set(i, times.get(i - 1));
      }
    }
    times.sort(null);
    List<KeyAttribute> attributes = List.of(
        new KeyAttribute("SK", KeyType.S, KeyAttribute.INDEX_SORT_KEY | KeyAttribute.TABLE_SORT_KEY),
        new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY));
    KeyValue group = KeyValue.ofString("seed");
    Path dir = context.dir("format-v2");
    long raw = 0;
    long[] sizesOf = new long[3];
    for (int version : new int[] {1, 2}) {
      Path file = dir.resolve("seed-v" + version + ".pmi");
      Random keys = new Random(7);
      try (GroupFileWriter w = new GroupFileWriter(file, new GroupHeader("PK2", group, attributes,
          12 + 2 + 20 + 2 + 24, 0, 0, "bench", new byte[32]), version)) {
        for (int i = 0; i < n; ) {
          int j = i;
          while (j < n && times.get(j).equals(times.get(i))) {
            j++;
          }
          for (int k = i; k < j; k++) {
            StringBuilder pk = new StringBuilder(24);
            for (int c = 0; c < 24; c++) {
              pk.append(alphabet.charAt(keys.nextInt(alphabet.length())));
            }
            raw += version == 2 ? 20 + 24 : 0;
            List<KeyValue> kv = List.of(KeyValue.ofString(times.get(k)), KeyValue.ofString(pk.toString()));
            w.append(j - i == 1 ? IndexRecord.unique(kv) : new IndexRecord(k - i, j - i, true, j - 1 - k, kv));
          }
          i = j;
        }
        w.finish();
      }
      sizesOf[version] = Files.size(file);
    }
    context.report(new Figure(SEED, sizesOf[2] / (double) n, "bytes", "the entry's raw key bytes (UTF-8)",
        raw / (double) n, "bytes", String.format("%,d synthetic entries in one group, 1 in 100 tied with the"
            + " previous; goal 28 bytes; the same entries as format v1: %.1f bytes an entry", n,
            sizesOf[1] / (double) n)));
  }

  private static long lookup(GroupPages g, long page) throws Exception {
    PageStart p = g.pageStart(page, Sizes.PAGE_SIZE, Order.ASC);
    return p.skip() + (p.exclusiveStartKey() == null ? 0 : p.exclusiveStartKey().size());
  }

  /** A group file as {@link GroupPages} reads it (what the file index's reader does). */
  private static RankedGroup ranked(GroupFile f) {
    return new RankedGroup() {
      @Override
      public KeyValue group() {
        return f.header().groupKey();
      }

      @Override
      public String groupAttribute() {
        return f.header().groupAttribute();
      }

      @Override
      public List<KeyAttribute> attributes() {
        return f.header().attributes();
      }

      @Override
      public String buildId() {
        return f.header().buildId();
      }

      @Override
      public long count() {
        return f.count();
      }

      @Override
      public IndexRecord record(long rank) throws IOException {
        return f.record(rank);
      }

      @Override
      public void close() {}
    };
  }
}
