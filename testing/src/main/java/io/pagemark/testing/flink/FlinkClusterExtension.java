package io.pagemark.testing.flink;

import io.pagemark.testing.ServiceExtension;
import io.pagemark.testing.SharedService;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * JUnit 5: one Flink session cluster for the test JVM ({@code @ExtendWith(FlinkClusterExtension.class)}, then a
 * parameter {@code FlinkCluster cluster}; submit to {@link FlinkCluster#restAddress()}) of 2 TaskManagers with 2 slots
 * each, checked before each test (every process alive, every TaskManager registered) and started anew, on new ports,
 * when it is not. Its start is logged in {@code target/services/flink-cluster-N.log}, its processes' logs are in the
 * folder {@code target/services/flink-cluster-N/log}.
 */
public final class FlinkClusterExtension extends ServiceExtension<FlinkCluster> {
  /** The cluster's size: what the tests of jobs on a cluster expect (parallelism 4). */
  public static final int TASK_MANAGERS = 2;
  private static final SharedService<FlinkCluster> SHARED =
      SharedService.of("flink-cluster", FlinkClusterExtension::start);

  public FlinkClusterExtension() {
    super(FlinkCluster.class, SHARED);
  }

  /** The JVM's cluster, started or restarted as needed: for helpers that are not handed it. */
  public static FlinkCluster get() throws IOException {
    return SHARED.get();
  }

  /** The cluster's state and logs go to a folder named as the log, which gets the start's progress lines. */
  private static FlinkCluster start(int port, Path log) throws IOException {
    Path dir = log.resolveSibling(log.getFileName().toString().replaceFirst("\\.log$", ""));
    try (OutputStream out = Files.newOutputStream(log, StandardOpenOption.APPEND);
        PrintStream progress = new PrintStream(out, true, StandardCharsets.UTF_8)) {
      return FlinkCluster.start(dir, FlinkCluster.Spec.of(TASK_MANAGERS), progress);
    }
  }
}
