package io.pagemark.pipelines.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pagemark.key.Json;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupNotFoundException;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.UnionCursor;
import io.pagemark.lookup.UnionPage;
import io.pagemark.lookup.UnionPageStart;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The JSON of a union of groups, shared by {@code lookup}, {@code page} and {@code serve}: a union's page start (one
 * Query per group) and a union's page of items, shaped like their one-group counterparts with {@code groups} for
 * {@code group}. Group keys are JSON strings, never raw text.
 */
public final class UnionJson {
  private UnionJson() {}

  /**
   * Group keys given as text, parsed as the index's group keys.
   *
   * @throws GroupNotFoundException naming the text that cannot be a group key of the index
   */
  public static List<KeyValue> keys(Index index, List<String> groups) throws GroupNotFoundException {
    List<KeyValue> keys = new ArrayList<>();
    for (String g : groups) {
      try {
        keys.add(KeyValue.parse(index.groupType(), g));
      } catch (IllegalArgumentException e) {
        throw new GroupNotFoundException("group " + Json.quote(g) + " cannot be a key of this index (its group keys"
            + " are of type " + index.groupType() + "): " + e.getMessage());
      }
    }
    return keys;
  }

  /**
   * The lookup contract's object for a union's page start, with the signed cursor of the next page ({@code next})
   * when {@code cursors} is given and the page is not the last.
   */
  public static ObjectNode start(UnionPageStart p, UnionCursor cursors) {
    ObjectNode o = Json.object();
    ArrayNode groups = o.putArray("groups");
    p.groups().forEach(g -> groups.add(g.text()));
    o.put("page", p.page()).put("pageSize", p.pageSize()).put("order", p.order().label()).put("count", p.count())
        .put("pages", p.pages()).put("build", p.buildId());
    ArrayNode starts = o.putArray("starts");
    for (UnionPageStart.GroupStart s : p.starts()) {
      ObjectNode one = starts.addObject().put("group", s.group().text());
      one.set("exclusiveStartKey", DynamoJson.key(s.exclusiveStartKey()));
      one.put("skip", s.skip()).put("take", s.take());
    }
    return next(o, p, cursors);
  }

  /** The page command's object for a union's page: as {@link #start}'s header, then the items and the cursor. */
  public static ObjectNode page(UnionPage<Map<String, AttributeValue>> p, UnionCursor cursors) {
    ObjectNode o = Json.object();
    ArrayNode groups = o.putArray("groups");
    p.groups().forEach(g -> groups.add(g.text()));
    UnionPageStart s = p.start();
    o.put("page", s.page()).put("pageSize", s.pageSize()).put("order", s.order().label()).put("count", s.count())
        .put("pages", s.pages()).put("build", s.buildId()).put("stale", p.stale());
    ArrayNode items = o.putArray("items");
    p.items().forEach(item -> items.add(DynamoJson.itemJson(item)));
    return next(o, s, cursors);
  }

  private static ObjectNode next(ObjectNode o, UnionPageStart s, UnionCursor cursors) {
    String next = cursors == null ? null : cursors.next(s);
    return next == null ? o : o.put("next", next);
  }

  /** The cost report of a union's page: one line. */
  static String summary(UnionPage<?> p) {
    UnionPageStart s = p.start();
    return String.format(Locale.ROOT,
        "pagemark page: page %d of %d (%s, build %s) of the union of %d groups: %d item%s, %d Query request%s, %.1f"
            + " read capacity units consumed, %d index records read to place the page%s",
        s.page(), s.pages(), s.order().label(), s.buildId(), s.groups().size(), p.items().size(),
        p.items().size() == 1 ? "" : "s", p.requests(), p.requests() == 1 ? "" : "s", p.consumedReadCapacity(),
        s.recordReads(), p.stale() ? "; stale: a group changed since the build" : "");
  }
}
