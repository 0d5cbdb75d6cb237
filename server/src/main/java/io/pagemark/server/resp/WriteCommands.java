package io.pagemark.server.resp;

import io.pagemark.change.IndexChange;
import io.pagemark.change.Version;
import io.pagemark.commit.IndexCommit;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ZADD}, {@code ZREM} and {@code PM.COMMIT} (alias {@code ZCOMMIT}), with {@code --wal}. A member names the
 * item and where it goes (its keys are the entry's keys; the score is ignored): {@code ZADD} stages the item's entry,
 * {@code ZREM} its removal, as one change each in the write-ahead log, acknowledged once on disk. Per item (table
 * primary key) the last change wins, as for DynamoDB's own change records: to move an item to a new sort key,
 * {@code ZREM} its old member, then {@code ZADD} the new one. Reads see none of it until {@code PM.COMMIT} has
 * published a build with the changes.
 */
final class WriteCommands {
  private WriteCommands() {}

  /**
   * Whether a request is a ZADD or ZREM, whose replies the WAL writer gives in request order: a client's pipelined
   * changes are then written together rather than one fsync each.
   */
  static boolean appends(byte[][] args) {
    return args.length > 0 && (Commands.is(args[0], "zadd") || Commands.is(args[0], "zrem"));
  }

  static void zadd(Session s, byte[][] a) throws IOException {
    if (Numbers.parseDouble(a[2], 0) == null && isZaddOption(a[2])) {
      s.out.error("ERR ZADD options (NX, XX, GT, LT, CH, INCR) are not supported: a member is staged as it is");
      return;
    }
    if ((a.length - 2) % 2 != 0) {
      s.out.error(SortedSetCommands.SYNTAX);
      return;
    }
    for (int i = 2; i < a.length; i += 2) {
      if (!Numbers.isScore(a[i])) {
        s.out.error("ERR value is not a valid float");
        return;
      }
    }
    List<byte[]> members = new ArrayList<>();
    for (int i = 3; i < a.length; i += 2) {
      members.add(a[i]);
    }
    stage(s, a[1], members, true);
  }

  static void zrem(Session s, byte[][] a) throws IOException {
    List<byte[]> members = new ArrayList<>();
    for (int i = 2; i < a.length; i++) {
      members.add(a[i]);
    }
    stage(s, a[1], members, false);
  }

  private static boolean isZaddOption(byte[] b) {
    for (String o : new String[] {"nx", "xx", "gt", "lt", "ch", "incr"}) {
      if (Commands.is(b, o)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Checks every member, then appends one change per member; replies with how many members were new to (ZADD) or
   * in (ZREM) the served build, once the changes are durable.
   */
  private static void stage(Session s, byte[] key, List<byte[]> members, boolean add) throws IOException {
    Writes writes = s.server.writes();
    if (writes == null) {
      s.out.error(readOnly(s.build()));
      return;
    }
    ServedBuild build = s.build();
    KeyValue group = build.groupKey(key);
    if (group == null) {
      s.out.error("ERR '" + Commands.text(key, 128) + "' cannot be a group key of this index (its group keys are of"
          + " type " + build.groupType() + ")");
      return;
    }
    Members format = new Members(build.groupAttribute(), group, build.attributes());
    GroupView served = s.group(key);
    List<IndexChange> changes = new ArrayList<>();
    long counted = 0;
    for (byte[] m : members) {
      Members.Parsed p = format.parse(m);
      if (!p.ok()) {
        s.out.error("ERR " + p.problem());
        return;
      }
      boolean present = served != null && served.rankOf(p.keys()) >= 0;
      counted += add != present ? 1 : 0;
      Version v = writes.nextVersion();
      List<KeyValue> item = itemKey(group, build.attributes(), p.keys());
      changes.add(add ? new IndexChange(group, item, v, null, p.keys())
          : new IndexChange(group, item, v, p.keys(), null));
    }
    long reply = counted;
    Connection c = s.client;
    s.await();
    writes.append(build.groupAttribute(), build.attributes(), changes, failure -> s.complete(c, out -> {
      if (failure == null) {
        out.integer(reply);
      } else {
        out.error("ERR the write-ahead log could not store the change (" + failure.getMessage()
            + "); nothing of this command was acknowledged");
      }
    }));
  }

  /**
   * The item's table primary key: the stored attribute that is the table's partition key (the group key when none
   * is stored: the GSI shares the table's partition key), then the one that is its sort key, if any.
   */
  static List<KeyValue> itemKey(KeyValue group, List<KeyAttribute> attributes, List<KeyValue> keys) {
    KeyValue partition = group;
    KeyValue sort = null;
    for (int i = 0; i < attributes.size(); i++) {
      if ((attributes.get(i).roles() & KeyAttribute.TABLE_PARTITION_KEY) != 0) {
        partition = keys.get(i);
      }
      if ((attributes.get(i).roles() & KeyAttribute.TABLE_SORT_KEY) != 0) {
        sort = keys.get(i);
      }
    }
    return sort == null ? List.of(partition) : List.of(partition, sort);
  }

  /** Why this server refuses ZADD, ZREM and PM.COMMIT: read-only, or an index that is not a file index. */
  static String readOnly(ServedBuild build) {
    if (!build.writable()) {
      return "ERR the index " + build.spec() + " cannot take ZADD, ZREM or PM.COMMIT: they stage changes in a file"
          + " index's write-ahead log, and this index is not a file index; change the items in the DynamoDB table"
          + " (pagemark stream keeps the index current) and read them here";
    }
    return "ERR this server serves its index read-only; start pagemark resp with --wal=INDEX to accept ZADD, ZREM"
        + " and PM.COMMIT";
  }

  /** {@code PM.COMMIT}: merges the log into a new build, serves it, and says what was applied. */
  static void commit(Session s, byte[][] a) {
    Writes writes = s.server.writes();
    if (writes == null) {
      s.out.error(readOnly(s.build()));
      return;
    }
    Connection c = s.client;
    s.await();
    writes.commit((r, failure) -> {
      String served = null;
      Throwable f = failure;
      if (f == null) {
        try {
          served = s.server.refresh(); // the client's next command reads the new build
        } catch (IOException | RuntimeException e) {
          f = e;
        }
      }
      String build = served;
      Throwable problem = f;
      s.complete(c, out -> reply(out, r, build, problem));
    });
  }

  private static void reply(Reply out, IndexCommit.Result r, String served, Throwable failure) {
    if (failure != null) {
      out.error("ERR commit failed: " + failure.getMessage() + " (the changes stay in the write-ahead log)");
      return;
    }
    out.array(14);
    out.bulk("build");
    out.bulk(served);
    out.bulk("published");
    out.integer(r.nothingToCommit() ? 0 : 1);
    out.bulk("changes");
    out.integer(r.changes());
    out.bulk("applied");
    out.integer(r.applied());
    out.bulk("stale");
    out.integer(r.stale());
    out.bulk("groupsRewritten");
    out.integer(r.groupsRewritten());
    out.bulk("millis");
    out.integer(r.millis());
  }
}
