package io.pagemark.pipelines;

import io.pagemark.lookup.Index;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** The stream tests' table ({@link StreamTable}) for tests in other packages. */
public final class StreamTableAccess {
  public static final String GSI = StreamTable.GSI;

  private StreamTableAccess() {}

  public static void create(DynamoDbClient c, String table) {
    StreamTable.create(c, table);
  }

  /** {@code count} random writes over {@code itemSpace} items. */
  public static void write(DynamoDbClient c, String table, int count, int itemSpace, long seed) {
    StreamTable.randomWrites(c, table, count, itemSpace, seed);
  }

  /** Every page of every group, both orders, through {@code index} equals DynamoDB's cursor walk. */
  public static void assertEveryPage(DynamoDbClient c, String table, Index index, int pageSize) throws Exception {
    StreamTable.assertEveryPageIsDynamoDbsPage(c, table, index, pageSize);
  }
}
