package io.pagemark.bench;

import io.pagemark.format.jdbc.JdbcAddress;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.Order;
import io.pagemark.testing.PostgresServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The PostgreSQL index against the seed's relational design, on one PostgreSQL (started for the run, on loopback)
 * and the same data:
 *
 * <ul>
 *   <li>page-start latency, p50 and p99, at ranks 0, 10k, 100k and 500k of a 500k-entry group: pagemark's lookup
 *       ({@code Indexes.open("jdbc:...")}, then per sample: open the group, {@code pageStart}, close: a
 *       primary-key seek on (group, rank) per record read) against the seed's
 *       {@code SELECT sort_key, key_1 ... WHERE group_key = ? ORDER BY sort_key, key_1 LIMIT 1 OFFSET n} on a
 *       covering index of the same table, vacuumed so that both read index-only where they can;
 *   <li>build throughput: synthetic entries built into PostgreSQL by the backfill's sink (Beam's DirectRunner in a
 *       JVM of its own: order, rank, JdbcIO batches, publish) against {@code COPY} of the same rows.
 * </ul>
 */
final class PostgresPages implements Bench {
  /**
   * Sizes of one mode.
   *
   * @param build the synthetic entries built (the hot group is the timed one)
   * @param ranks the ranks whose page start is timed
   * @param seekSamples timed lookups per rank
   * @param offsetSamples timed OFFSET queries per rank
   */
  record Scale(SyntheticEntries build, List<Long> ranks, int seekSamples, int offsetSamples) {
    static Scale of(Sizes sizes) {
      return sizes.mode().equals("quick")
          ? new Scale(new SyntheticEntries(30_000, 11, 20_001), List.of(0L, 1_000L, 10_000L, 20_000L), 300, 20)
          : new Scale(new SyntheticEntries(520_000, 21, 500_001), List.of(0L, 10_000L, 100_000L, 500_000L), 2_000,
              40);
    }
  }

  static final String BUILD = "postgres-bench";

  static String latencyName(long rank, String percentile) {
    return String.format(Locale.ROOT, "PostgreSQL page start at rank %,d, %s, rank seek vs ORDER BY OFFSET", rank,
        percentile);
  }

  static String buildName(SyntheticEntries spec) {
    return String.format(Locale.ROOT, "build throughput into PostgreSQL, DirectRunner, %,d entries, vs COPY",
        spec.entries());
  }

  @Override
  public String id() {
    return "postgres";
  }

  @Override
  public List<String> figures(Sizes sizes) {
    Scale scale = Scale.of(sizes);
    List<String> names = new ArrayList<>();
    for (long rank : scale.ranks()) {
      names.add(latencyName(rank, "p50"));
      names.add(latencyName(rank, "p99"));
    }
    names.add(buildName(scale.build()));
    return names;
  }

  @Override
  public void run(Sizes sizes, Context context) throws Exception {
    Scale scale = Scale.of(sizes);
    SyntheticEntries spec = scale.build();
    context.progress().println("bench: starting PostgreSQL ...");
    try (PostgresServer postgres = PostgresServer.start()) {
      String url = postgres.createDatabase("bench") + "&currentSchema=bench";
      context.progress().printf("bench: building %,d synthetic entries (a group of %,d) into PostgreSQL ...%n",
          spec.entries(), spec.hotEntries());
      List<String> args = new ArrayList<>(List.of(Long.toString(spec.entries()), Integer.toString(spec.groups()),
          Long.toString(spec.hotEntries()), url, BUILD));
      args.addAll(Sizes.Runner.DIRECT.options());
      Map<String, String> r = ChildJvm.run("3g", PostgresBuildJob.class, args,
          context.dir("postgres").resolve("build.log"), context.progress());
      double buildSeconds = Double.parseDouble(r.get("seconds"));
      context.progress().println("bench: loading the same rows with COPY ...");
      double copySeconds = CopyFloor.seconds(spec, JdbcAddress.parse(url));
      context.report(new Figure(buildName(spec), spec.entries() / buildSeconds, "entries/s",
          "COPY FROM STDIN (binary) of the same rows into a table of the same primary key",
          spec.entries() / copySeconds, "entries/s", String.format(Locale.ROOT, "%,d entries over %,d groups; build"
              + " %.1f s (pipeline run to published build: ordering, ranking, JdbcIO batches of 1,000, count check,"
              + " ANALYZE, publish), COPY %.1f s (rows encoded beforehand)", spec.entries(), spec.groups(),
              buildSeconds, copySeconds)));
      timeLookups(scale, postgres, url, context);
    }
  }

  private static void timeLookups(Scale scale, PostgresServer postgres, String url, Context context)
      throws Exception {
    JdbcAddress address = JdbcAddress.parse(url);
    String entries = address.layout().entries(BUILD);
    KeyValue hot = KeyValue.ofString(SyntheticEntries.hotGroup());
    try (Connection c = address.connect()) {
      try (Statement s = c.createStatement()) {
        // The seed's best case: its ORDER BY read from a covering index, index-only once vacuumed.
        s.execute("CREATE INDEX IF NOT EXISTS by_sort_key ON " + entries + " (group_key, sort_key, key_1)");
        s.execute("VACUUM ANALYZE " + entries);
      }
      try (Index index = Indexes.open(url);
          PreparedStatement offset = c.prepareStatement("SELECT sort_key, key_1 FROM " + entries
              + " WHERE group_key = ? ORDER BY sort_key, key_1 LIMIT 1 OFFSET ?")) {
        offset.setBytes(1, hot.sortableBytes());
        for (long rank : scale.ranks()) {
          Samples seek = new Samples(scale.seekSamples());
          for (int i = -scale.seekSamples() / 10; i < scale.seekSamples(); i++) { // a tenth more, as a warm-up
            long t0 = System.nanoTime();
            try (GroupPages g = index.group(hot)) {
              g.pageStart(rank / Sizes.PAGE_SIZE + 1, Sizes.PAGE_SIZE, Order.ASC);
            }
            if (i >= 0) {
              seek.add(System.nanoTime() - t0);
            }
          }
          Samples scan = new Samples(scale.offsetSamples());
          offset.setLong(2, rank);
          for (int i = -2; i < scale.offsetSamples(); i++) {
            long t0 = System.nanoTime();
            try (ResultSet rs = offset.executeQuery()) {
              if (!rs.next()) {
                throw new IllegalStateException("OFFSET " + rank + " found no row in the hot group");
              }
            }
            if (i >= 0) {
              scan.add(System.nanoTime() - t0);
            }
          }
          String note = String.format(Locale.ROOT, "group of %,d entries, pages of %d; %,d lookups and %,d OFFSET"
              + " queries after a warm-up, single calls on loopback; lookup = open group (count), pageStart, close",
              scale.build().hotEntries(), Sizes.PAGE_SIZE, scale.seekSamples(), scale.offsetSamples());
          for (double p : new double[] {50, 99}) {
            String percentile = p == 50 ? "p50" : "p99";
            context.report(new Figure(latencyName(rank, percentile), seek.percentileMicros(p), "us",
                "SELECT ... ORDER BY sort_key, key_1 LIMIT 1 OFFSET " + rank + " on a covering index",
                scan.percentileMicros(p), "us", note));
          }
        }
      }
    }
  }
}
