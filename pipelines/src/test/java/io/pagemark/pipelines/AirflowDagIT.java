package io.pagemark.pipelines;

import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import io.pagemark.format.IndexLayout;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * The Airflow DAG for real: Airflow 3 and the Beam provider in a virtualenv of their own ({@code ensure-airflow}),
 * {@code airflow dags test} of {@code pagemark_rebuild} against DynamoDB Local on the DirectRunner with the job jar.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(DynamoDbLocalExtension.class)
class AirflowDagIT {
  static final Path REPO = Path.of(System.getProperty("pagemark.repo", "..")).toAbsolutePath().normalize();
  Path venv;
  Path jar;
  DynamoDbLocal local;
  DynamoDbClient client;

  @BeforeAll
  void setUp(DynamoDbLocal local) throws Exception {
    jar = Path.of(System.getProperty("pagemark.flinkJar", REPO.resolve("pipelines/target/pagemark-flink.jar").toString()));
    assertThat("the job jar is built by the test command's package phase: " + jar, Files.isRegularFile(jar),
        is(true));
    Run ensure = run(List.of(REPO.resolve("pipelines/airflow/ensure-airflow").toString()), Map.of(),
        Duration.ofMinutes(30));
    assertThat("ensure-airflow failed:\n" + ensure.output, ensure.code, is(0));
    String[] lines = ensure.stdout.strip().split("\n");
    venv = Path.of(lines[lines.length - 1]);
    this.local = local;
    client = local.client();
  }

  record Run(int code, String stdout, String output) {}

  static Run run(List<String> command, Map<String, String> env, Duration timeout) throws Exception {
    Path out = Files.createTempFile("airflow-it-", ".out");
    Path err = Files.createTempFile("airflow-it-", ".err");
    ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
    pb.environment().putAll(env);
    Process p = pb.start();
    if (!p.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(command + " did not finish within " + timeout + ":\n" + Files.readString(out)
          + Files.readString(err));
    }
    String stdout = Files.readString(out, StandardCharsets.UTF_8);
    return new Run(p.exitValue(), stdout, stdout + Files.readString(err, StandardCharsets.UTF_8));
  }

  /**
   * The second schedule: {@code pagemark_catch_up} loads beside {@code pagemark_rebuild}, runs every 15 minutes, one
   * run at a time, and its command line passes --since and --dynamoEndpoint only when given (cheap: parsing only).
   */
  @Test
  void theCatchUpDagRunsEveryFifteenMinutesBesideTheRebuild(@TempDir Path dir) throws Exception {
    String script = String.join("\n",
        "import os",
        "from jinja2 import Environment",
        "from airflow.dag_processing.dagbag import DagBag",
        "bag = DagBag(dag_folder=os.environ['AIRFLOW__CORE__DAGS_FOLDER'])",
        "assert not bag.import_errors, bag.import_errors",
        "assert 'pagemark_rebuild' in bag.dags",
        "dag = bag.dags['pagemark_catch_up']",
        "print('timetable', repr(dag.timetable), 'max_active_runs', dag.max_active_runs)",
        "task = dag.get_task('catch_up')",
        "for since, endpoint in [('', ''), ('2026-11-23T00:00:00Z', 'http://127.0.0.1:8000')]:",
        "    params = {k: dag.params[k] for k in dag.params.keys()}",
        "    params.update(since=since, dynamo_endpoint=endpoint)",
        "    print('command', Environment().from_string(task.bash_command).render(params=params))");
    Run r = run(List.of(venv.resolve("bin/python").toString(), "-c", script), airflowEnv(dir), Duration.ofMinutes(5));
    assertThat(r.output, r.code, is(0));
    assertThat(r.stdout, containsString("expression='*/15 * * * *'"));
    assertThat(r.stdout, containsString("max_active_runs 1"));
    String[] commands = r.stdout.lines().filter(l -> l.startsWith("command ")).toArray(String[]::new);
    assertThat(r.stdout, commands.length, is(2));
    assertThat(commands[0], containsString("io.pagemark.pipelines.Main catch-up --commit --table=comments"));
    assertThat(commands[0], not(containsString("--since")));
    assertThat(commands[0], not(containsString("--dynamoEndpoint")));
    assertThat(commands[1], containsString(" --since=2026-11-23T00:00:00Z --dynamoEndpoint=http://127.0.0.1:8000"));
  }

  private Map<String, String> airflowEnv(Path home) {
    return Map.of(
        "AIRFLOW_HOME", home.toString(),
        "AIRFLOW__CORE__DAGS_FOLDER", REPO.resolve("pipelines/airflow/dags").toString(),
        "AIRFLOW__CORE__LOAD_EXAMPLES", "false",
        "AIRFLOW__CORE__UNIT_TEST_MODE", "false",
        "PAGEMARK_JAR", jar.toString(),
        "PAGEMARK_RETRIES", "0",
        "PATH", venv.resolve("bin") + ":" + System.getenv("PATH"));
  }

  private Run dagsTest(Path home, String conf) throws Exception {
    Map<String, String> env = airflowEnv(home);
    String airflow = venv.resolve("bin/airflow").toString();
    Run migrate = run(List.of(airflow, "db", "migrate"), env, Duration.ofMinutes(10));
    assertThat(migrate.output, migrate.code, is(0));
    return run(List.of(airflow, "dags", "test", "pagemark_rebuild", "--conf", conf), env, Duration.ofMinutes(15));
  }

  private String conf(String table, Path index) {
    return "{\"table\":\"" + table + "\",\"gsi\":\"" + SampleComments.GSI + "\",\"index\":\"" + index
        + "\",\"dynamo_endpoint\":\"" + local.endpoint() + "\",\"jar\":\"" + jar
        + "\",\"runner\":\"DirectRunner\",\"segments\":2,\"keep_builds\":1,\"gc_grace_minutes\":0}";
  }

  @Test
  void theDagBuildsVerifiesAndCollectsAgainstDynamoDbLocal(@TempDir Path dir) throws Exception {
    String table = "airflowComments";
    SampleComments.createTable(client, table);
    SampleComments.load(client, table, SampleComments.generate(800, 8, 5), 2, null);
    Path index = dir.resolve("index");
    Run first = dagsTest(dir.resolve("airflow"), conf(table, index));
    assertThat(first.output, first.code, is(0));
    String firstBuild;
    try (Index i = Indexes.open(index.toString())) {
      firstBuild = i.buildId();
      assertThat(new IndexLayout(index).buildInfo(firstBuild).counts().entries(), is(800L));
    }
    Run second = dagsTest(dir.resolve("airflow"), conf(table, index));
    assertThat(second.output, second.code, is(0));
    try (Index i = Indexes.open(index.toString())) {
      assertThat(i.buildId(), not(firstBuild));
    }
    String logs = second.output + taskLogs(dir.resolve("airflow"));
    assertThat(logs, containsString("pagemark verify: OK"));
    assertThat(logs, containsString("pagemark gc: removed 1 build(s)"));
    assertThat(Files.list(index.resolve("builds")).count(), is(1L));
  }

  @Test
  void aBrokenTableFailsTheBackfillTaskWithThePipelinesMessage(@TempDir Path dir) throws Exception {
    String table = "airflowBroken";
    client.createTable(b -> b.tableName(table).billingMode(BillingMode.PAY_PER_REQUEST)
        .attributeDefinitions(AttributeDefinition.builder().attributeName("PK").attributeType(ScalarAttributeType.S)
            .build())
        .keySchema(KeySchemaElement.builder().attributeName("PK").keyType(KeyType.HASH).build()));
    Run r = dagsTest(dir.resolve("airflow"), conf(table, dir.resolve("index")));
    assertThat(r.code, not(is(0)));
    String logs = r.output + taskLogs(dir.resolve("airflow"));
    assertThat(logs, containsString("table airflowBroken has no global secondary index \"byProduct\""));
    assertThat(logs.length(), greaterThan(0));
    assertThat(Files.exists(dir.resolve("index").resolve("CURRENT")), is(false));
  }

  private static String taskLogs(Path home) throws IOException {
    Path logs = home.resolve("logs");
    if (!Files.isDirectory(logs)) {
      return "";
    }
    List<String> all = new ArrayList<>();
    try (Stream<Path> s = Files.walk(logs)) {
      for (Path p : s.filter(Files::isRegularFile).collect(Collectors.toList())) {
        all.add(Files.readString(p, StandardCharsets.UTF_8));
      }
    }
    return String.join("\n", all);
  }
}
