package io.pagemark.testing;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.sameInstance;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Start once, check, restart: against real redis-servers, each test with a shared service of its own. */
class SharedServiceTest {
  @Test
  void aLiveServiceIsHandedOutAgainAndADeadOneIsRestartedOnItsPortWithANewLog() throws Exception {
    SharedService<RedisServer> shared = SharedService.of("redis-restart-test", RedisServer::start);
    RedisServer first = shared.get();
    try {
      assertThat(shared.get(), sameInstance(first));
      assertThat(Files.readString(first.logs().get(0)), containsString("Ready to accept connections"));
      first.kill();

      RedisServer second = shared.get();
      assertThat(second, not(sameInstance(first)));
      assertThat("the same port, so that endpoints handed out before stay valid", second.port(), is(first.port()));
      assertThat(second.logs(), not(first.logs()));
      second.ping();
      String report = shared.report();
      assertThat(report, containsString("redis-server at " + second.uri() + " is running and answering"));
      assertThat(report, containsString("died (exited with code 137 (killed by signal 9)); restarting it"));
      assertThat(report, containsString("The log " + second.logs().get(0) + " ends with:"));
    } finally {
      shared.get().close();
    }
  }

  @Test
  void aServiceWhosePortWasTakenMeanwhileRestartsOnAnother() throws Exception {
    SharedService<RedisServer> shared = SharedService.of("redis-port-test", RedisServer::start);
    RedisServer first = shared.get();
    first.kill();
    try (ServerSocket squatter = new ServerSocket(first.port(), 1, InetAddress.getLoopbackAddress())) {
      RedisServer second = shared.get();
      try {
        assertThat(second.port(), not(is(first.port())));
        second.ping();
        assertThat(shared.report(), containsString("could not start on port " + first.port()));
      } finally {
        second.close();
      }
    }
  }

  @Test
  void aServiceThatCannotStartFailsEveryLaterTestWithoutTryingAgain() {
    AtomicInteger starts = new AtomicInteger();
    SharedService<RedisServer> shared = SharedService.of("broken-test", (port, log) -> {
      starts.incrementAndGet();
      throw new IOException("no such service here; install it");
    });
    IOException first = assertThrows(IOException.class, shared::get);
    assertThat(first.getMessage(), is("no such service here; install it"));
    IOException later = assertThrows(IOException.class, shared::get);
    assertThat(later.getMessage(), containsString("broken-test could not start earlier in this JVM"));
    assertThat(later.getMessage(), containsString("no such service here; install it"));
    assertThat(starts.get(), is(1));
  }
}
