package io.pagemark.testing;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;
import redis.clients.jedis.Jedis;

/**
 * The extensions as a test class sees them, run through the JUnit Platform on example classes: a service killed by
 * one test is alive for the next, at the same endpoint; a failing test's output shows the service's state and log.
 */
class ServiceExtensionTest {
  /** Ports the example tests saw, in order. */
  static final List<Integer> PORTS = new ArrayList<>();

  @ExtendWith(RedisExtension.class)
  @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
  static class KillsItsRedis {
    @Test
    @Order(1)
    void killsTheSharedServer(RedisServer redis) throws Exception {
      PORTS.add(redis.port());
      redis.kill();
    }

    @Test
    @Order(2)
    void getsOneThatAnswers(RedisServer redis) {
      PORTS.add(redis.port());
      try (Jedis j = redis.client()) {
        assertThat(j.ping(), is("PONG"));
      }
    }
  }

  @ExtendWith(RedisExtension.class)
  static class Fails {
    @Test
    void fails(RedisServer redis) {
      assertThat("the test's own failure", redis.port(), is(-1));
    }
  }

  @Test
  void aServiceATestKilledIsRestartedAtTheSameEndpointBeforeTheNextTest() {
    PORTS.clear();
    String err = run(KillsItsRedis.class, 2, 0);
    assertThat(PORTS.size(), is(2));
    assertThat(PORTS.get(1), is(PORTS.get(0)));
    assertThat(err, containsString("redis-server: "));
    assertThat(err, containsString(" died (exited with code 137 (killed by signal 9)); restarting it. The log"));
    assertThat(err, containsString("redis-server started at redis://127.0.0.1:" + PORTS.get(0)));
  }

  @Test
  void aFailingTestPrintsTheServicesStateAndTheTailOfItsLog() throws Exception {
    String err = run(Fails.class, 0, 1);
    RedisServer redis = RedisExtension.get();
    assertThat(err, containsString("== Fails.fails failed; redis-server at " + redis.uri()
        + " is running and answering"));
    assertThat(err, containsString("The log " + redis.logs().get(0) + " ends with:"));
    assertThat(err, containsString("Ready to accept connections"));
  }

  /** Runs a test class on the JUnit Platform; returns what it printed to stderr. */
  private static String run(Class<?> testClass, int succeeded, int failed) {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream original = System.err;
    SummaryGeneratingListener listener = new SummaryGeneratingListener();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      Launcher launcher = LauncherFactory.create();
      launcher.execute(LauncherDiscoveryRequestBuilder.request().selectors(selectClass(testClass)).build(), listener);
    } finally {
      System.setErr(original);
    }
    String err = captured.toString(StandardCharsets.UTF_8);
    original.print(err);
    TestExecutionSummary summary = listener.getSummary();
    String failures = summary.getFailures().stream().map(f -> f.getTestIdentifier().getDisplayName() + ": "
        + f.getException()).reduce("", (a, b) -> a + "\n" + b);
    assertThat(err + failures, summary.getTestsSucceededCount(), is((long) succeeded));
    assertThat(err + failures, summary.getTestsFailedCount(), is((long) failed));
    return err;
  }
}
