package io.pagemark.pipelines;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * A table built to break a naive index: a group whose items exceed 1 MB per scan segment, long runs of equal sort
 * keys, strings whose UTF-8 and UTF-16 orders differ, 38-digit and negative numbers that doubles cannot tell apart,
 * binary sort keys, hostile group keys, and items the GSIs do not hold.
 *
 * <p>Table key (PK S, SK S); GSIs {@code byString} (PK2, SK), {@code byNumber} (PK2, NUM N), {@code byBinary}
 * (PK2, BIN B).
 */
public final class TrickyTable {
  public static final String BY_STRING = "byString";
  public static final String BY_NUMBER = "byNumber";
  public static final String BY_BINARY = "byBinary";

  /** Group keys that must never become paths, and must stay distinct. */
  public static final List<String> HOSTILE_GROUPS =
      List.of("../x", "a/b", ".", "..", "CON", "nul\u0000byte", "k".repeat(1000), "\u00e9", "e\u0301", "A", "a",
          "with space", "new\nline", "back\\slash", "/etc/passwd");

  public static final List<String> TRICKY_STRINGS =
      List.of("a", "e\u0301", "\u00e9", "\u4e2d", "\uE000", "\uFFFD", "\uD83D\uDE00", "Z", "z", "~", "\u007f",
          "\u0080", "aa", "a\u0000", "\uD83D\uDE00a", "\uE000a");

  public static final List<String> TRICKY_NUMBERS =
      List.of("-99999999999999999999999999999999999999", "99999999999999999999999999999999999999",
          "12345678901234567890123456789012345678", "12345678901234567890123456789012345677", "0", "-0.5", "0.5",
          "1E-130", "-1E-130", "9.9999999999999999999999999999999999999E+125",
          "-9.9999999999999999999999999999999999999E+125", "1", "1.0000000000000000000000000000000000001",
          "0.99999999999999999999999999999999999999", "-1", "-1.0000000000000000000000000000000000001", "100",
          "1E+2", "2", "10", "-10", "-2");

  private TrickyTable() {}

  public static void create(DynamoDbClient c, String table) {
    c.createTable(
        b ->
            b.tableName(table)
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(
                    def("PK", ScalarAttributeType.S), def("SK", ScalarAttributeType.S),
                    def("PK2", ScalarAttributeType.S), def("NUM", ScalarAttributeType.N),
                    def("BIN", ScalarAttributeType.B))
                .keySchema(key("PK", KeyType.HASH), key("SK", KeyType.RANGE))
                .globalSecondaryIndexes(gsi(BY_STRING, "SK"), gsi(BY_NUMBER, "NUM"), gsi(BY_BINARY, "BIN")));
  }

  private static AttributeDefinition def(String name, ScalarAttributeType t) {
    return AttributeDefinition.builder().attributeName(name).attributeType(t).build();
  }

  private static KeySchemaElement key(String name, KeyType t) {
    return KeySchemaElement.builder().attributeName(name).keyType(t).build();
  }

  private static GlobalSecondaryIndex gsi(String name, String sortKey) {
    return GlobalSecondaryIndex.builder()
        .indexName(name)
        .keySchema(key("PK2", KeyType.HASH), key(sortKey, KeyType.RANGE))
        .projection(Projection.builder().projectionType(ProjectionType.ALL).build())
        .build();
  }

  /** The items, deterministic for a seed. */
  public static List<Map<String, AttributeValue>> items(long seed) {
    Random r = new Random(seed);
    List<Map<String, AttributeValue>> items = new ArrayList<>();
    int[] id = {0};
    // A big group: 400 items of ~8 KB, so each of 2 scan segments reads well over 1 MB.
    String pad = "x".repeat(8000);
    for (int i = 0; i < 400; i++) {
      Map<String, AttributeValue> item = item(id, "big", String.format("t%05d", r.nextInt(100000)), r);
      item.put("pad", AttributeValue.fromS(pad));
      items.add(item);
    }
    // Long runs of equal sort keys, in all three sort key types.
    for (int i = 0; i < 300; i++) {
      Map<String, AttributeValue> item = item(id, "ties", "same-" + r.nextInt(4), r);
      item.put("NUM", AttributeValue.fromN(Integer.toString(r.nextInt(3) - 1)));
      item.put("BIN", AttributeValue.fromB(SdkBytes.fromByteArray(new byte[] {(byte) (r.nextInt(2) * 200)})));
      items.add(item);
    }
    // UTF-8 vs UTF-16 order, and numbers beyond doubles.
    for (int i = 0; i < 120; i++) {
      String s = TRICKY_STRINGS.get(r.nextInt(TRICKY_STRINGS.size()))
          + (r.nextInt(3) == 0 ? "" : TRICKY_STRINGS.get(r.nextInt(TRICKY_STRINGS.size())));
      Map<String, AttributeValue> item = item(id, "utf", s, r);
      item.put("NUM", AttributeValue.fromN(TRICKY_NUMBERS.get(r.nextInt(TRICKY_NUMBERS.size()))));
      items.add(item);
    }
    // Hostile group keys, each with a few items (some tied).
    for (String g : HOSTILE_GROUPS) {
      for (int i = 0; i < 5 + r.nextInt(20); i++) {
        items.add(item(id, g, TRICKY_STRINGS.get(r.nextInt(4)), r));
      }
    }
    // Items no GSI holds (no PK2), and items only byString holds (no NUM, no BIN).
    for (int i = 0; i < 30; i++) {
      Map<String, AttributeValue> item = item(id, null, "orphan" + i, r);
      items.add(item);
    }
    for (int i = 0; i < 40; i++) {
      Map<String, AttributeValue> item = item(id, "mixed", "m" + r.nextInt(10), r);
      item.remove("NUM");
      item.remove("BIN");
      items.add(item);
    }
    return items;
  }

  private static Map<String, AttributeValue> item(int[] id, String group, String sk, Random r) {
    Map<String, AttributeValue> m = new HashMap<>();
    m.put("PK", AttributeValue.fromS(String.format("item-%05d", id[0]++)));
    m.put("SK", AttributeValue.fromS(sk));
    if (group != null) {
      m.put("PK2", AttributeValue.fromS(group));
    }
    m.put("NUM", AttributeValue.fromN(TRICKY_NUMBERS.get(r.nextInt(TRICKY_NUMBERS.size()))));
    byte[] b = new byte[1 + r.nextInt(3)];
    r.nextBytes(b);
    m.put("BIN", AttributeValue.fromB(SdkBytes.fromByteArray(b)));
    return m;
  }

  /** Items per group that a GSI with the given sort attribute holds. */
  public static Map<String, Integer> expectedCounts(List<Map<String, AttributeValue>> items, String sortAttribute) {
    Map<String, Integer> m = new LinkedHashMap<>();
    for (Map<String, AttributeValue> it : items) {
      if (it.containsKey("PK2") && it.containsKey(sortAttribute)) {
        m.merge(it.get("PK2").s(), 1, Integer::sum);
      }
    }
    return m;
  }
}
