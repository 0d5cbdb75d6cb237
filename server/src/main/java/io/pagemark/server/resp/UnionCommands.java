package io.pagemark.server.resp;

import io.pagemark.lookup.CursorRefusedException;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.LookupException;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.UnionCursor;
import io.pagemark.lookup.UnionPageStart;
import io.pagemark.lookup.UnionPages;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code PM.UPAGE page size ASC|DESC key [key ...]}: where a page of the union of several groups starts, as
 * {@code pagemark lookup} with several {@code --group}s says: {@code [count, pages, [[group, exclusive start key or
 * nil, skip, take], ...], next]}, one entry per group the build holds, in DynamoDB's order of group keys (a group the
 * build does not hold is empty and left out), and {@code next} the signed cursor of the next page (nil on the last),
 * which {@code PM.UNEXT} reads.
 */
final class UnionCommands {
  private UnionCommands() {}

  static void upage(Session s, byte[][] a) throws IOException {
    Long page = Numbers.parseLong(a[1]);
    Long size = Numbers.parseLong(a[2]);
    if (page == null || page < 1) {
      s.out.error("ERR page must be a whole number from 1, not '" + Commands.text(a[1], 64) + "'");
      return;
    }
    if (size == null || size < 1 || size > 1_000_000) {
      s.out.error("ERR page size must be a whole number from 1 to 1000000, not '" + Commands.text(a[2], 64) + "'");
      return;
    }
    Order order;
    if (Commands.is(a[3], "asc")) {
      order = Order.ASC;
    } else if (Commands.is(a[3], "desc")) {
      order = Order.DESC;
    } else {
      s.out.error("ERR order must be ASC or DESC, not '" + Commands.text(a[3], 64) + "'");
      return;
    }
    UnionPages union = union(s, a, 4);
    if (union == null) {
      return;
    }
    UnionPageStart p;
    try {
      p = union.pageStart(page, size.intValue(), order);
    } catch (LookupException e) {
      s.out.error("ERR " + e.getMessage());
      return;
    }
    reply(s, p);
  }

  /**
   * {@code PM.UNEXT cursor key [key ...]}: the reply of {@code PM.UPAGE} for the page a cursor names (the fourth element
   * of a {@code PM.UPAGE} or {@code PM.UNEXT} reply), given the same keys. A cursor this server refuses (malformed,
   * forged or altered, of other groups or another build) is an error reply; the connection stays usable.
   */
  static void unext(Session s, byte[][] a) throws IOException {
    UnionPages union = union(s, a, 2);
    if (union == null) {
      return;
    }
    UnionPageStart p;
    try {
      UnionCursor.Position at = s.server.options().cursors()
          .decode(new String(a[1], StandardCharsets.ISO_8859_1), union.groups(), union.buildId());
      p = union.pageStart(at.page(), at.pageSize(), at.order());
    } catch (CursorRefusedException e) {
      s.out.error("ERR cursor is refused: " + e.getMessage());
      return;
    } catch (LookupException e) {
      s.out.error("ERR " + e.getMessage());
      return;
    }
    reply(s, p);
  }

  /** The union of the groups named from argument {@code from} on that the build holds; null after an error reply. */
  private static UnionPages union(Session s, byte[][] a, int from) throws IOException {
    List<GroupPages> groups = new ArrayList<>();
    for (int i = from; i < a.length; i++) {
      GroupView g = s.group(a[i]);
      if (g != null) {
        groups.add(g.pages());
      }
    }
    if (groups.isEmpty()) {
      s.out.error("ERR none of the groups is in build " + s.build().id() + " of the index");
      return null;
    }
    try {
      // The views own their pages (closing them does nothing), so the union is not closed.
      return UnionPages.of(groups);
    } catch (IllegalArgumentException e) {
      s.out.error("ERR " + e.getMessage());
      return null;
    }
  }

  private static void reply(Session s, UnionPageStart p) throws IOException {
    s.out.array(4);
    s.out.integer(p.count());
    s.out.integer(p.pages());
    s.out.array(p.starts().size());
    for (UnionPageStart.GroupStart g : p.starts()) {
      s.out.array(4);
      s.out.bulk(g.group().text());
      if (g.exclusiveStartKey() == null) {
        s.out.nil();
      } else {
        s.out.bulk(SortedSetCommands.json(g.exclusiveStartKey()));
      }
      s.out.integer(g.skip());
      s.out.integer(g.take());
    }
    String next = s.server.options().cursors().next(p);
    if (next == null) {
      s.out.nil();
    } else {
      s.out.bulk(next);
    }
  }
}
