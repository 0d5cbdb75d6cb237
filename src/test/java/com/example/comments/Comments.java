package com.example.comments;

import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.LookupException;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageReader;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** A product's comments in numbered pages of 20, newest first. Open one at startup and share it (thread-safe). */
public final class Comments implements AutoCloseable {
  private final Index index;
  private final PageReader<Map<String, AttributeValue>> reader;

  public Comments(DynamoDbClient dynamo, String indexSpec) throws IOException {
    index = Indexes.open(indexSpec); // the backfill's --output directory, or redis://HOST:PORT/DB?prefix=P
    reader = PageReader.of(dynamo, "comments", "byProduct", index);
  }

  /** Page n (from 1): the items DynamoDB's own LastEvaluatedKey walk shows there, for the cost of one Query. */
  public List<Map<String, AttributeValue>> page(String product, long n) throws IOException, LookupException {
    return reader.read(product, n, 20, Order.DESC).items();
  }

  @Override
  public void close() throws IOException {
    index.close();
  }
}
