package io.pagemark.pipelines.union;

import io.pagemark.dynamo.ItemKeys;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.pipelines.PageWalk;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Test fixture: ratings-like groups for the tricky table ({@code PRODUCT#42/1} .. {@code /5}, one group per rating)
 * with skewed sizes, few distinct sort keys (ties inside and across groups), a group of one item and a rating no
 * item has; and the reference order of a union: the merge of the groups' own DynamoDB walks by the union's rule.
 */
final class RatingsGroups {
  static final String PREFIX = "PRODUCT#42/";
  /** Items per rating: rating 2 has none. */
  static final int[] SIZES = {0, 1, 0, 90, 6, 35};

  private RatingsGroups() {}

  static String rating(int r) {
    return PREFIX + r;
  }

  static List<Map<String, AttributeValue>> items(long seed) {
    Random r = new Random(seed);
    List<Map<String, AttributeValue>> items = new ArrayList<>();
    for (int rating = 1; rating <= 5; rating++) {
      for (int i = 0; i < SIZES[rating]; i++) {
        Map<String, AttributeValue> m = new HashMap<>();
        m.put("PK", AttributeValue.fromS(String.format("comment-%d-%03d", rating, i)));
        m.put("SK", AttributeValue.fromS("2026-11-0" + r.nextInt(6)));
        m.put("PK2", AttributeValue.fromS(rating(rating)));
        m.put("NUM", AttributeValue.fromN(Integer.toString(r.nextInt(8) - 3)));
        m.put("BIN", AttributeValue.fromB(SdkBytes.fromByteArray(new byte[] {(byte) (r.nextInt(3) * 100)})));
        items.add(m);
      }
    }
    return items;
  }

  /** One item of a union's reference order. */
  private record Member(Map<String, AttributeValue> item, KeyValue sortKey, KeyValue group, int position) {}

  /**
   * The union read in one direction, as the union's contract orders it: each group walked by DynamoDB with its own
   * cursor, merged by sort key, then by group key, each group keeping its walk's order.
   */
  static List<Map<String, AttributeValue>> merged(DynamoDbClient c, String table, String gsi, String sortAttribute,
      KeyType sortType, List<String> groups, boolean forward) {
    List<Member> all = new ArrayList<>();
    for (String g : groups) {
      int position = 0;
      for (List<Map<String, AttributeValue>> page : PageWalk.pages(c, table, gsi, g, 50, forward)) {
        for (Map<String, AttributeValue> item : page) {
          KeyValue sortKey = ItemKeys.keyValue(sortAttribute, sortType, item.get(sortAttribute));
          all.add(new Member(item, sortKey, KeyValue.ofString(g), position++));
        }
      }
    }
    Comparator<Member> c0 = Comparator.comparing(Member::sortKey).thenComparing(Member::group);
    all.sort((forward ? c0 : c0.reversed()).thenComparingInt(Member::position));
    List<Map<String, AttributeValue>> out = new ArrayList<>();
    all.forEach(m -> out.add(m.item()));
    return out;
  }
}
