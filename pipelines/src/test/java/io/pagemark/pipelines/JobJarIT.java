package io.pagemark.pipelines;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.format.TestIndex;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line from the job jar, as {@code flink run} ({@code java -jar}: {@code pagemark backfill}) and the
 * Airflow DAG ({@code java -cp JAR io.pagemark.pipelines.Main verify|gc}) run it. The jar lacks the local services
 * of pagemark-testing while picocli reads every subcommand's signatures at start, and Beam finds its options through
 * the jar's merged service files: both break only here.
 */
class JobJarIT {
  static final Path REPO = Path.of(System.getProperty("pagemark.repo", "..")).toAbsolutePath().normalize();
  static Path jar;
  @TempDir static Path tmp;

  @BeforeAll
  static void theJarIsBuilt() {
    jar = Path.of(System.getProperty("pagemark.flinkJar", REPO.resolve("pipelines/target/pagemark-flink.jar")
        .toString()));
    assertThat("the job jar is built by the test command's package phase: " + jar, Files.isRegularFile(jar), is(true));
  }

  record Run(int code, String out, String err) {}

  static Run java(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
    command.addAll(List.of(args));
    Path out = Files.createTempFile(tmp, "out", ".txt");
    Path err = Files.createTempFile(tmp, "err", ".txt");
    Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(2, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError(String.join(" ", command) + " still runs after 2 minutes");
    }
    return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  static Run pagemark(String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of("-cp", jar.toString(), "io.pagemark.pipelines.Main"));
    all.addAll(List.of(args));
    return java(all.toArray(String[]::new));
  }

  @Test
  void everyCommandLoadsFromTheJobJar() throws Exception {
    Run help = pagemark("--help");
    assertThat(help.err, help.code, is(0));
    for (String command : List.of("demo", "backfill", "stream", "commit", "lookup", "page", "verify", "gc", "relay",
        "flink-cluster")) {
      assertThat(help.out, containsString("\n  " + command + " "));
    }
    Run gc = pagemark("gc", "--index=" + tmp.resolve("none"), "--keep=0");
    assertThat(gc.err, gc.code, is(2));
    assertThat(gc.err, startsWith("pagemark gc: --keep must be between 1 and 1000000, not 0\n"));
  }

  @Test
  void lookupPrintsItsJsonFromTheJobJar() throws Exception {
    Path index = tmp.resolve("index");
    new TestIndex(index, "PK2", "S", List.of(new KeyAttribute("SK2", KeyType.N, KeyAttribute.INDEX_SORT_KEY),
            new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY)))
        .group(KeyValue.ofString("g-1"), List.of(
            IndexRecord.unique(List.of(KeyValue.ofNumber("1"), KeyValue.ofString("a"))),
            IndexRecord.unique(List.of(KeyValue.ofNumber("2"), KeyValue.ofString("b")))))
        .publish("j1", 1_000L);
    Run r = pagemark("lookup", "--index", index.toString(), "--group", "g-1", "--page=2,1", "--pageSize=1");
    assertThat(r.err, r.code, is(0));
    assertThat(r.out, equalTo("{\"group\":\"g-1\",\"page\":2,\"pageSize\":1,\"order\":\"asc\",\"count\":2,"
        + "\"pages\":2,\"exclusiveStartKey\":{\"PK2\":{\"S\":\"g-1\"},\"SK2\":{\"N\":\"1\"},\"PK\":{\"S\":\"a\"}},"
        + "\"skip\":0}\n{\"group\":\"g-1\",\"page\":1,\"pageSize\":1,\"order\":\"asc\",\"count\":2,\"pages\":2,"
        + "\"exclusiveStartKey\":null,\"skip\":0}\n"));
  }

  @Test
  void theJarsMainClassIsTheBackfillWithBeamsOptions() throws Exception {
    Run help = java("-jar", jar.toString(), "--help");
    assertThat(help.err, help.code, is(0));
    assertThat(help.out, startsWith("usage: pagemark backfill --table=TABLE [OPTION...] [BEAM-OPTION...]\n"));
    Run unknown = java("-jar", jar.toString(), "--table=t", "--gsi=g", "--output=o", "--flinkMaster=[local]",
        "--colour=red");
    assertThat(unknown.err, unknown.code, is(2));
    assertThat(unknown.err, startsWith("pagemark backfill: unknown option --colour\n"));
  }
}
