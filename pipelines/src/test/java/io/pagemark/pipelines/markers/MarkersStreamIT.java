package io.pagemark.pipelines.markers;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.pipelines.Main;
import io.pagemark.pipelines.StreamTableAccess;
import io.pagemark.pipelines.relay.Relay;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.Kinesalite;
import io.pagemark.testing.KinesaliteExtension;
import io.pagemark.transforms.source.KinesisConnection;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * {@code pagemark stream --markers=...} against DynamoDB Local and kinesalite: random puts, deletes, group and sort key
 * moves (equal sort keys, hostile group keys), relayed with duplicates, leave every page of every group, in both
 * orders, equal to DynamoDB's cursor walk through the markers.
 */
@ExtendWith({DynamoDbLocalExtension.class, KinesaliteExtension.class})
class MarkersStreamIT {
  static final int PAGE = 4;

  @Test
  void aStreamOfRandomChangesWithDuplicatesKeepsEveryPageTheCursorWalksPage(@TempDir Path dir, DynamoDbLocal local,
      Kinesalite kinesalite) throws Exception {
    String table = "markerStream";
    kinesalite.createStream(table, 1);
    try (DynamoDbClient c = local.client()) {
      StreamTableAccess.create(c, table);
      StreamTableAccess.write(c, table, 300, 120, 5);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int code = Main.run(List.of("markers", "build", "--table=" + table, "--gsi=" + StreamTableAccess.GSI,
          "--pageSize=" + PAGE, "--createIndex", "--segments=1", "--progressSeconds=0",
          "--dynamoEndpoint=" + local.endpoint(), "--deadLetterOutput=" + dir.resolve("dead")),
          new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
      assertThat(err.toString(StandardCharsets.UTF_8), code, is(0));
      String spec = "dynamodb://" + table + "/" + StreamTableAccess.GSI + "-markers?endpoint=" + local.endpoint();
      try (Index index = Indexes.open(spec)) {
        StreamTableAccess.assertEveryPage(c, table, index, PAGE);
      }

      Path log = dir.resolve("stream.log");
      Process stream = startStream(local, kinesalite, table, log);
      try (Relay relay = Relay.start(local.connection(), table,
          new KinesisConnection(kinesalite.endpoint(), kinesalite.region()), table, new Relay.Options(0.2, 10, 7))) {
        StreamTableAccess.write(c, table, 400, 120, 6);
        relay.awaitIdle(Duration.ofSeconds(120));
        assertThat("the relay duplicated records", relay.duplicated(), greaterThan(20L));
      }
      try {
        AssertionError last = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline && stream.isAlive()) {
          try (Index index = Indexes.open(spec)) {
            StreamTableAccess.assertEveryPage(c, table, index, PAGE);
            last = null;
            break;
          } catch (AssertionError | IOException e) {
            last = e instanceof AssertionError a ? a : new AssertionError(e.getMessage(), e);
            Thread.sleep(500); // polling a condition with a deadline: the stream applies changes every 500 ms
          }
        }
        assertThat("the stream is running; its log ends:\n" + tail(log), stream.isAlive(), is(true));
        if (last != null) {
          throw new AssertionError(last.getMessage() + "; the stream's log ends:\n" + tail(log), last);
        }
      } finally {
        stream.destroy();
        stream.waitFor();
      }
    }
  }

  private static String tail(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
  }

  /** {@code pagemark stream --markers=...} in a JVM of its own, as {@code bin/pagemark} runs it. */
  private static Process startStream(DynamoDbLocal local, Kinesalite kinesalite, String table, Path log)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(List.of("-Xmx512m", "-Daws.cborEnabled=false", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
        "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
        "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
        "-cp", System.getProperty("java.class.path"), Main.class.getName()));
    cmd.addAll(List.of("stream", "--stream=" + table, "--kinesisEndpoint=" + kinesalite.endpoint(),
        "--table=" + table, "--gsi=" + StreamTableAccess.GSI, "--dynamoEndpoint=" + local.endpoint(),
        "--markers=dynamodb://" + table + "/" + StreamTableAccess.GSI + "-markers", "--from=trim_horizon",
        "--flushMillis=500", "--progressSeconds=2"));
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }
}
