package io.pagemark.server.resp;

import io.pagemark.key.Json;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.LookupException;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageStart;
import java.io.IOException;
import java.util.Map;

/**
 * The sorted-set reads: a group is a sorted set whose members are its items' exclusive start keys and whose scores
 * are their ascending ranks. Ranges by rank ({@code ZRANGE}, {@code ZREVRANGE}) follow DynamoDB's order in both
 * directions, ties included; ranges by score follow the scores (so {@code BYSCORE REV} is the ascending order
 * reversed, as in Redis). Option parsing, range arithmetic and error texts are Redis 7.0's.
 */
final class SortedSetCommands {
  static final String NOT_INTEGER = "ERR value is not an integer or out of range";
  static final String NOT_FLOAT = "ERR min or max is not a float";
  static final String SYNTAX = "ERR syntax error";
  private static final int AUTO = 0;
  private static final int RANK = 1;
  private static final int SCORE = 2;
  private static final int LEX = 3;

  private SortedSetCommands() {}

  static void zcard(Session s, byte[][] a) throws IOException {
    GroupView g = s.group(a[1]);
    s.out.integer(g == null ? 0 : g.count());
  }

  static void zrange(Session s, byte[][] a) throws IOException {
    range(s, a, AUTO, false, false);
  }

  static void zrevrange(Session s, byte[][] a) throws IOException {
    range(s, a, RANK, true, true);
  }

  static void zrangebyscore(Session s, byte[][] a) throws IOException {
    range(s, a, SCORE, false, true);
  }

  static void zrevrangebyscore(Session s, byte[][] a) throws IOException {
    range(s, a, SCORE, true, true);
  }

  /** Redis's {@code zrangeGenericCommand}: options, then the range, then the key. */
  private static void range(Session s, byte[][] a, int type, boolean reverse, boolean directionFixed)
      throws IOException {
    boolean withScores = false;
    long offset = 0;
    long limit = -1;
    for (int j = 4; j < a.length; j++) {
      int left = a.length - j - 1;
      if (Commands.is(a[j], "withscores")) {
        withScores = true;
      } else if (Commands.is(a[j], "limit") && left >= 2) {
        Long o = Numbers.parseLong(a[j + 1]);
        Long l = Numbers.parseLong(a[j + 2]);
        if (o == null || l == null) {
          s.out.error(NOT_INTEGER);
          return;
        }
        offset = o;
        limit = l;
        j += 2;
      } else if (!directionFixed && !reverse && Commands.is(a[j], "rev")) {
        reverse = true;
      } else if (type == AUTO && Commands.is(a[j], "bylex")) {
        type = LEX;
      } else if (type == AUTO && Commands.is(a[j], "byscore")) {
        type = SCORE;
      } else {
        s.out.error(SYNTAX);
        return;
      }
    }
    if (type == AUTO) {
      type = RANK;
    }
    if (limit != -1 && type == RANK) {
      s.out.error("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
      return;
    }
    if (withScores && type == LEX) {
      s.out.error("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
      return;
    }
    if (type == LEX) {
      s.out.error("ERR BYLEX is not supported: every member of a group has a score of its own (its rank)");
      return;
    }
    byte[] min = reverse && type == SCORE ? a[3] : a[2];
    byte[] max = reverse && type == SCORE ? a[2] : a[3];
    if (type == RANK) {
      Long start = Numbers.parseLong(min);
      Long end = Numbers.parseLong(max);
      if (start == null || end == null) {
        s.out.error(NOT_INTEGER);
        return;
      }
      GroupView g = s.group(a[1]);
      if (g == null) {
        s.out.array(0);
        return;
      }
      byRank(s, g, start, end, reverse, withScores);
      return;
    }
    Numbers.ScoreRange r = Numbers.scoreRange(min, max);
    if (r == null) {
      s.out.error(NOT_FLOAT);
      return;
    }
    GroupView g = s.group(a[1]);
    if (g == null) {
      s.out.array(0);
      return;
    }
    byScore(s, g, r, reverse, offset, limit, withScores);
  }

  private static void byRank(Session s, GroupView g, long start, long end, boolean reverse, boolean withScores)
      throws IOException {
    long n = g.count();
    if (start < 0) {
      start += n;
    }
    if (end < 0) {
      end += n;
    }
    if (start < 0) {
      start = 0;
    }
    if (start > end || start >= n) {
      s.out.array(0);
      return;
    }
    if (end >= n) {
      end = n - 1;
    }
    RangeReply.send(s, g, reverse ? RangeReply.Walk.DESCENDING_POSITIONS : RangeReply.Walk.ASCENDING, start, end,
        withScores);
  }

  private static void byScore(Session s, GroupView g, Numbers.ScoreRange r, boolean reverse, long offset, long limit,
      boolean withScores) throws IOException {
    long lo = Math.max(0, r.lowestRank());
    long hi = Math.min(g.count() - 1, r.highestRank());
    if (lo > hi || offset < 0) {
      s.out.array(0);
      return;
    }
    if (!reverse) {
      long first = lo + Math.min(offset, hi - lo + 1);
      long last = limit < 0 ? hi : Math.min(hi, first + limit - 1);
      if (first > last) {
        s.out.array(0);
        return;
      }
      RangeReply.send(s, g, RangeReply.Walk.ASCENDING, first, last, withScores);
    } else {
      long first = hi - Math.min(offset, hi - lo + 1);
      long last = limit < 0 ? lo : Math.max(lo, first - limit + 1);
      if (first < last) {
        s.out.array(0);
        return;
      }
      // walk ascending ranks downwards: position i of the walk is rank first - i
      RangeReply.send(s, g, RangeReply.Walk.ASCENDING_REVERSED, first, last, withScores);
    }
  }

  static void zcount(Session s, byte[][] a) throws IOException {
    Numbers.ScoreRange r = Numbers.scoreRange(a[2], a[3]);
    if (r == null) {
      s.out.error(NOT_FLOAT);
      return;
    }
    GroupView g = s.group(a[1]);
    if (g == null) {
      s.out.integer(0);
      return;
    }
    long lo = Math.max(0, r.lowestRank());
    long hi = Math.min(g.count() - 1, r.highestRank());
    s.out.integer(Math.max(0, hi - lo + 1));
  }

  static void zrank(Session s, byte[][] a) throws IOException {
    long rank = rankOf(s, a[1], a[2]);
    if (rank < 0) {
      s.out.nil();
    } else {
      s.out.integer(rank);
    }
  }

  static void zrevrank(Session s, byte[][] a) throws IOException {
    long rank = rankOf(s, a[1], a[2]);
    if (rank < 0) {
      s.out.nil();
    } else {
      s.out.integer(s.group(a[1]).descendingOf(rank));
    }
  }

  static void zscore(Session s, byte[][] a) throws IOException {
    long rank = rankOf(s, a[1], a[2]);
    if (rank < 0) {
      s.out.nil();
    } else {
      s.out.bulkNumber(rank);
    }
  }

  static void zmscore(Session s, byte[][] a) throws IOException {
    s.out.array(a.length - 2);
    for (int i = 2; i < a.length; i++) {
      long rank = rankOf(s, a[1], a[i]);
      if (rank < 0) {
        s.out.nil();
      } else {
        s.out.bulkNumber(rank);
      }
    }
  }

  /** The ascending rank of a member in a group, or -1 when the group or the member is not there. */
  private static long rankOf(Session s, byte[] key, byte[] member) throws IOException {
    GroupView g = s.group(key);
    if (g == null) {
      return -1;
    }
    Members.Parsed p = g.members().parse(member);
    return p.ok() ? g.rankOf(p.keys()) : -1;
  }

  /** {@code PM.PAGE key page size [ASC|DESC]}: where a page starts, as {@code pagemark lookup} says. */
  static void page(Session s, byte[][] a) throws IOException {
    Long page = Numbers.parseLong(a[2]);
    Long size = Numbers.parseLong(a[3]);
    if (page == null || page < 1) {
      s.out.error("ERR page must be a whole number from 1, not '" + Commands.text(a[2], 64) + "'");
      return;
    }
    if (size == null || size < 1 || size > 1_000_000) {
      s.out.error("ERR page size must be a whole number from 1 to 1000000, not '" + Commands.text(a[3], 64) + "'");
      return;
    }
    Order order = Order.ASC;
    if (a.length == 5) {
      if (Commands.is(a[4], "asc")) {
        order = Order.ASC;
      } else if (Commands.is(a[4], "desc")) {
        order = Order.DESC;
      } else {
        s.out.error("ERR order must be ASC or DESC, not '" + Commands.text(a[4], 64) + "'");
        return;
      }
    } else if (a.length > 5) {
      s.out.error(SYNTAX);
      return;
    }
    GroupView g = s.group(a[1]);
    if (g == null) {
      s.out.error("ERR group \"" + Commands.text(a[1], 128) + "\" is not in build " + s.build().id()
          + " of the index");
      return;
    }
    PageStart p;
    try {
      p = g.pages().pageStart(page, size.intValue(), order);
    } catch (LookupException e) {
      s.out.error("ERR " + e.getMessage());
      return;
    }
    s.out.array(4);
    s.out.integer(p.count());
    s.out.integer(p.pages());
    if (p.exclusiveStartKey() == null) {
      s.out.nil();
    } else {
      s.out.bulk(json(p.exclusiveStartKey()));
    }
    s.out.integer(p.skip());
  }

  /** An exclusive start key as {@code pagemark lookup} prints it. */
  static String json(Map<String, KeyValue> key) {
    StringBuilder b = new StringBuilder("{");
    for (Map.Entry<String, KeyValue> e : key.entrySet()) {
      if (b.length() > 1) {
        b.append(',');
      }
      b.append(Json.quote(e.getKey())).append(':').append(e.getValue());
    }
    return b.append('}').toString();
  }
}
