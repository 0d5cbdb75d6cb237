package io.pagemark.server.resp;

import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.LookupException;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.UnionPageStart;
import io.pagemark.lookup.UnionPages;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code PM.UPAGE page size ASC|DESC key [key ...]}: where a page of the union of several groups starts, as
 * {@code pagemark lookup} with several {@code --group}s says: {@code [count, pages, [[group, exclusive start key or
 * nil, skip, take], ...]]}, one entry per group the build holds, in DynamoDB's order of group keys (a group the build
 * does not hold is empty and left out).
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
    List<GroupPages> groups = new ArrayList<>();
    for (int i = 4; i < a.length; i++) {
      GroupView g = s.group(a[i]);
      if (g != null) {
        groups.add(g.pages());
      }
    }
    if (groups.isEmpty()) {
      s.out.error("ERR none of the groups is in build " + s.build().id() + " of the index");
      return;
    }
    UnionPageStart p;
    try {
      // The views own their pages (closing them does nothing), so the union is not closed here.
      p = UnionPages.of(groups).pageStart(page, size.intValue(), order);
    } catch (IllegalArgumentException | LookupException e) {
      s.out.error("ERR " + e.getMessage());
      return;
    }
    s.out.array(3);
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
  }
}
