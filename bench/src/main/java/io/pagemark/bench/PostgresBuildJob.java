package io.pagemark.bench;

import io.pagemark.format.jdbc.JdbcAddress;
import io.pagemark.format.jdbc.JdbcBuilds;
import io.pagemark.transforms.BuildIndex;
import io.pagemark.transforms.order.IndexEntryCoder;
import io.pagemark.transforms.sink.jdbc.WriteJdbcIndex;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.io.GenerateSequence;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.ParDo;

/**
 * One index build of synthetic entries into PostgreSQL, in a JVM of its own: {@code PostgresBuildJob ENTRIES GROUPS
 * HOT_ENTRIES JDBC_URL BUILD_ID [beam options...]}. Feeds {@link BuildIndex} from {@code GenerateSequence} into
 * {@link WriteJdbcIndex}, waits for the build to be published, checks that PostgreSQL holds every entry, and prints
 * {@code RESULT seconds=... entries=...}. Exit code 1 if the build fails.
 */
public final class PostgresBuildJob {
  private PostgresBuildJob() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 5) {
      System.err.println("usage: PostgresBuildJob ENTRIES GROUPS HOT_ENTRIES JDBC_URL BUILD_ID [beam options...]");
      System.exit(2);
    }
    SyntheticEntries spec =
        new SyntheticEntries(Long.parseLong(args[0]), Integer.parseInt(args[1]), Long.parseLong(args[2]));
    JdbcAddress address = JdbcAddress.parse(args[3]);
    String buildId = args[4];
    PipelineOptions options =
        PipelineOptionsFactory.fromArgs(java.util.Arrays.copyOfRange(args, 5, args.length)).withValidation().create();
    BuildIndex build = BuildIndex.of(SyntheticEntries.schema()).withSink(WriteJdbcIndex.to(address.url()))
        .withBuild(buildId, System.currentTimeMillis()).withKeepBuilds(1);
    Pipeline p = Pipeline.create(options);
    p.apply("Entry numbers", GenerateSequence.from(0).to(spec.entries()))
        .apply("Synthetic entries", ParDo.of(new BuildJob.EntryFn(spec)))
        .setCoder(IndexEntryCoder.of())
        .apply("Build index", build);
    long started = System.nanoTime();
    PipelineResult.State state = p.run().waitUntilFinish();
    double seconds = (System.nanoTime() - started) / 1e9;
    if (state != PipelineResult.State.DONE) {
      System.err.println("PostgresBuildJob: pipeline ended in state " + state);
      System.exit(1);
    }
    try (Connection c = address.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM " + address.layout().entries(buildId))) {
      rs.next();
      if (rs.getLong(1) != spec.entries() || !buildId.equals(new JdbcBuilds(address).current(c))) {
        System.err.printf("PostgresBuildJob: PostgreSQL holds %,d entries of build %s, expected %,d%n",
            rs.getLong(1), buildId, spec.entries());
        System.exit(1);
      }
    }
    System.out.printf(java.util.Locale.ROOT, "RESULT seconds=%.3f entries=%d%n", seconds, spec.entries());
    System.exit(0);
  }
}
