package io.pagemark.testing;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.sameInstance;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.testing.flink.FlinkCluster;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * The JVM-wide services of the extensions, killed with SIGKILL the way the OOM killer or a crash would: DynamoDB
 * Local, kinesalite and PostgreSQL are running and answering again, on the same port and empty, when a test next
 * asks for them; a Flink cluster that lost a process says so, which is what makes its extension start a new one.
 */
class ServiceRestartIT {
  @Test
  @ExtendWith(DynamoDbLocalExtension.class)
  void aKilledDynamoDbLocalIsBackOnItsPortAndEmpty(DynamoDbLocal local) throws Exception {
    try (DynamoDbClient c = local.client()) {
      c.createTable(b -> b.tableName("beforeTheKill").billingMode(BillingMode.PAY_PER_REQUEST)
          .attributeDefinitions(AttributeDefinition.builder().attributeName("PK")
              .attributeType(ScalarAttributeType.S).build())
          .keySchema(KeySchemaElement.builder().attributeName("PK").keyType(KeyType.HASH).build()));
    }
    kill(local.port());
    DynamoDbLocal again = DynamoDbLocalExtension.get();
    assertThat(again, not(sameInstance(local)));
    assertThat(again.port(), is(local.port()));
    try (DynamoDbClient c = local.client()) {
      assertThat("a client made before the restart reaches the new process", c.listTables().tableNames(),
          is(List.of()));
    }
  }

  @Test
  @ExtendWith(KinesaliteExtension.class)
  void aKilledKinesaliteIsBackOnItsPort(Kinesalite kinesalite) throws Exception {
    kinesalite.createStream("before", 1);
    kill(kinesalite.port());
    Kinesalite again = KinesaliteExtension.get();
    assertThat(again.port(), is(kinesalite.port()));
    again.createStream("after", 1);
    try (KinesisClient c = again.client()) {
      assertThat(c.listStreams().streamNames(), is(List.of("after")));
    }
  }

  @Test
  @ExtendWith(PostgresExtension.class)
  void aKilledPostgresIsBackOnItsPortAsANewCluster(PostgresServer postgres) throws Exception {
    String url = postgres.createDatabase("before_the_kill");
    postgres.kill(); // the postmaster is not a child of this JVM (pg_ctl detaches it): the launcher kills it
    PostgresServer again = PostgresExtension.get();
    assertThat(again, not(sameInstance(postgres)));
    assertThat(again.port(), is(postgres.port()));
    again.ping();
    assertThrows(java.sql.SQLException.class, () -> java.sql.DriverManager.getConnection(url).close(),
        "the new cluster is empty: the database made before the kill is gone");
  }

  @Test
  void aFlinkClusterThatLostATaskManagerIsNotAliveAndStopsWhole(@TempDir Path dir) throws Exception {
    // the restart itself is SharedService's, tested above; here: what tells it that a cluster needs one
    FlinkCluster cluster = FlinkCluster.start(dir, FlinkCluster.Spec.of(1), System.err);
    try {
      cluster.ping();
      assertThat(cluster.isAlive(), is(true));
      ProcessHandle tm = ProcessHandle.of(cluster.pids().get(1)).orElseThrow();
      tm.destroyForcibly();
      tm.onExit().get();
      assertThat(cluster.isAlive(), is(false));
      assertThat(cluster.exitStatus(), is("JobManager running, 0 of 1 TaskManagers running"));
    } finally {
      cluster.close();
    }
    assertThat("the cluster's processes are gone", cluster.pids().stream().filter(
        pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).toList(), is(List.of()));
    assertThat(cluster.logs().get(0), is(dir.resolve("log").resolve("jobmanager.log")));
  }

  /** SIGKILLs this JVM's child process that serves {@code port}, and waits until it is gone. */
  private static void kill(int port) throws Exception {
    List<ProcessHandle> served = ProcessHandle.current().children()
        .filter(p -> p.info().commandLine().map(c -> c.matches(".*--?port " + port + "( .*)?")).orElse(false))
        .toList();
    assertThat("one child process serves port " + port, served.size(), is(1));
    served.get(0).destroyForcibly();
    served.get(0).onExit().get();
  }
}
