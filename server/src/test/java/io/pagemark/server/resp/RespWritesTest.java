package io.pagemark.server.resp;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.key.KeyValue;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ZADD, ZREM and PM.COMMIT in-process: pipelined changes are acknowledged in order (a refused one too), reads see
 * them only once committed, and the committed group is the one a fresh build of the changed entries would hold.
 */
class RespWritesTest {
  @TempDir
  Path dir;

  @Test
  void pipelinedChangesAreAcknowledgedInOrderAndVisibleAfterCommit() throws Exception {
    RespFixture f = new RespFixture(dir.resolve("index")).group("ties", 120, 5);
    f.publish("w1");
    try (RespServer s = RespServer.start(RespServer.Options.of(f.root.toString()).withPort(0).withThreads(2)
            .withWal(f.root));
        RawClient c = new RawClient(s.port())) {
      List<IndexEntry> entries = f.groups.get(KeyValue.ofString("ties"));
      List<IndexEntry> removed = new ArrayList<>(entries.subList(0, 30));
      List<IndexEntry> added = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        added.add(new IndexEntry(KeyValue.ofString("ties"), List.of(KeyValue.ofString("same-" + (i % 3)),
            KeyValue.ofString(String.format("new-%04d", i)))));
      }
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      List<Object> expected = new ArrayList<>();
      for (int i = 0; i < added.size(); i++) {
        b.writeBytes(RawClient.command("ZADD", "ties", Integer.toString(i), RespFixture.member(added.get(i))));
        expected.add(1L);
        if (i == 100) {
          b.writeBytes(RawClient.command("ZADD", "ties", "1", "{\"PK2\":{\"S\":\"other\"}}"));
          expected.add("refused");
        }
        if (i < removed.size()) {
          b.writeBytes(RawClient.command("ZREM", "ties", RespFixture.member(removed.get(i))));
          expected.add(1L);
        }
      }
      b.writeBytes(RawClient.command("ZCARD", "ties"));
      expected.add(120L);
      c.send(b.toByteArray());
      for (Object e : expected) {
        Object r = c.read();
        if (e.equals("refused")) {
          assertThat(r, instanceOf(RawClient.Error.class));
          assertThat(((RawClient.Error) r).message(), startsWith("ERR member must hold exactly PK2, SK, PK"));
        } else {
          assertThat(r, equalTo(e));
        }
      }
      @SuppressWarnings("unchecked")
      List<Object> commit = (List<Object>) c.call("PM.COMMIT");
      assertThat(commit.get(0), equalTo("build"));
      assertThat(commit.get(1), not(equalTo("w1")));
      assertThat(commit.subList(4, 8), equalTo(List.of("changes", 330L, "applied", 330L)));
      assertThat(c.call("ZCARD", "ties"), equalTo(390L));

      entries = new ArrayList<>(entries.subList(30, entries.size()));
      entries.addAll(added);
      f.groups.put(KeyValue.ofString("ties"), entries);
      // the commit has no DynamoDB to ask: runs it touched keep the index's own order, flagged unresolved
      @SuppressWarnings("unchecked")
      List<String> asc = (List<String>) c.call("ZRANGE", "ties", "0", "-1");
      List<String> all = new ArrayList<>();
      entries.forEach(e -> all.add(RespFixture.member(e)));
      assertThat(new java.util.HashSet<>(asc), equalTo(new java.util.HashSet<>(all)));
      assertThat(asc, hasItem(RespFixture.member(added.get(7))));
      assertThat(c.call("ZRANK", "ties", RespFixture.member(removed.get(0))), equalTo(null));
      assertThat(c.call("ZRANK", "ties", asc.get(200)), equalTo(200L));
    }
  }

  @Test
  void aReadOnlyServerRefusesChangesAndTheWalMustBeTheIndexs() throws Exception {
    RespFixture f = new RespFixture(dir.resolve("ro")).plainGroup("g", 3);
    f.publish("r1");
    try (RespServer s = RespServer.start(RespServer.Options.of(f.root.toString()).withPort(0));
        RawClient c = new RawClient(s.port())) {
      Object r = c.call("ZADD", "g", "1", "{}");
      assertThat(((RawClient.Error) r).message(), startsWith("ERR this server serves its index read-only"));
      assertThat(c.call("PM.COMMIT"), instanceOf(RawClient.Error.class));
    }
    Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> RespServer.start(RespServer.Options.of(f.root.toString()).withPort(0).withWal(elsewhere)));
    assertThat(e.getMessage(), startsWith("--wal must name the served index's directory"));
    assertThat(Files.exists(f.root.resolve("wal")), is(false));
  }
}
