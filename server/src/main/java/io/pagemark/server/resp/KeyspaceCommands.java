package io.pagemark.server.resp;

import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The keyspace: every group of the served build is a key of type {@code zset} (its key is the group key as text,
 * decimal or base64, as {@code pagemark lookup --group} takes it), and nothing else exists.
 */
final class KeyspaceCommands {
  private KeyspaceCommands() {}

  static void exists(Session s, byte[][] a) throws IOException {
    long n = 0;
    for (int i = 1; i < a.length; i++) {
      if (s.group(a[i]) != null) {
        n++;
      }
    }
    s.out.integer(n);
  }

  static void type(Session s, byte[][] a) throws IOException {
    s.out.simple(s.group(a[1]) != null ? "zset" : "none");
  }

  static void dbsize(Session s, byte[][] a) throws IOException {
    s.out.integer(s.build().groups().size());
  }

  /**
   * {@code SCAN cursor [MATCH pattern] [COUNT n] [TYPE t]}: the cursor is a position in the build's stable group
   * order (see {@link ServedBuild.Groups}); 0 starts and ends a walk.
   */
  static void scan(Session s, byte[][] a) throws IOException {
    Long cursor = parseCursor(a[1]);
    if (cursor == null) {
      s.out.error("ERR invalid cursor");
      return;
    }
    byte[] pattern = null;
    long count = 10;
    boolean zsets = true;
    for (int j = 2; j < a.length; j++) {
      int left = a.length - j - 1;
      if (Commands.is(a[j], "count") && left >= 1) {
        Long c = Numbers.parseLong(a[++j]);
        if (c == null) {
          s.out.error(SortedSetCommands.NOT_INTEGER);
          return;
        }
        if (c < 1) {
          s.out.error(SortedSetCommands.SYNTAX);
          return;
        }
        count = c;
      } else if (Commands.is(a[j], "match") && left >= 1) {
        pattern = a[++j];
        if (pattern.length == 1 && pattern[0] == '*') {
          pattern = null;
        }
      } else if (Commands.is(a[j], "type") && left >= 1) {
        zsets = Commands.is(a[++j], "zset");
      } else {
        s.out.error(SortedSetCommands.SYNTAX);
        return;
      }
    }
    ServedBuild.Groups groups = s.build().groups();
    int i = cursor == 0 ? 0 : groups.from(cursor);
    List<byte[]> found = new ArrayList<>();
    long visited = 0;
    while (i < groups.size() && visited < count) {
      long position = groups.positions[i];
      // groups that share a position are returned together, so that the next cursor skips none of them
      for (; i < groups.size() && groups.positions[i] == position; i++, visited++) {
        byte[] key = keyOf(groups.keys[i]);
        if (zsets && (pattern == null || Glob.matches(pattern, key))) {
          found.add(key);
        }
      }
    }
    long next = i < groups.size() ? groups.positions[i] : 0;
    s.out.array(2);
    s.out.bulk(Long.toUnsignedString(next).getBytes(StandardCharsets.US_ASCII));
    s.out.array(found.size());
    found.forEach(s.out::bulk);
  }

  static void keys(Session s, byte[][] a) throws IOException {
    ServedBuild.Groups groups = s.build().groups();
    boolean all = a[1].length == 1 && a[1][0] == '*';
    List<byte[]> found = new ArrayList<>();
    for (KeyValue g : groups.keys) {
      byte[] key = keyOf(g);
      if (all || Glob.matches(a[1], key)) {
        found.add(key);
      }
    }
    s.out.array(found.size());
    found.forEach(s.out::bulk);
  }

  /** The RESP key of a group: its text (decimal for numbers, base64 for binaries). */
  static byte[] keyOf(KeyValue group) {
    return group.type() == io.pagemark.key.KeyType.S ? group.bytes() : group.text().getBytes(StandardCharsets.UTF_8);
  }

  /** A SCAN cursor: an unsigned decimal number, as Redis takes it. */
  private static Long parseCursor(byte[] b) {
    if (b.length == 0 || b.length > 20) {
      return null;
    }
    for (byte c : b) {
      if (c < '0' || c > '9') {
        return null;
      }
    }
    try {
      return Long.parseUnsignedLong(new String(b, StandardCharsets.US_ASCII));
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
