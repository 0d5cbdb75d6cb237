package io.pagemark.bench;

import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.ConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsResponse;

/**
 * Counts every DynamoDB request of the bench JVM, and the capacity DynamoDB reports for it, while armed: the page
 * markers' reader and writer make their own clients, which the AWS SDK gives every interceptor listed in
 * {@code software/amazon/awssdk/global/handlers/execution.interceptors}. While armed it asks each request for its
 * consumed capacity; unarmed it changes nothing.
 */
public final class CapacityMeter implements ExecutionInterceptor {
  private static volatile boolean armed;
  private static final LongAdder REQUESTS = new LongAdder();
  private static final DoubleAdder READ = new DoubleAdder();
  private static final DoubleAdder WRITE = new DoubleAdder();

  /** What was counted between {@link #start()} and {@link #stop()}. */
  record Reading(long requests, double readCapacity, double writeCapacity) {}

  static void start() {
    REQUESTS.reset();
    READ.reset();
    WRITE.reset();
    armed = true;
  }

  static Reading stop() {
    armed = false;
    return new Reading(REQUESTS.sum(), READ.sum(), WRITE.sum());
  }

  @Override
  public SdkRequest modifyRequest(Context.ModifyRequest context, ExecutionAttributes attributes) {
    if (!armed) {
      return context.request();
    }
    SdkRequest r = context.request();
    ReturnConsumedCapacity total = ReturnConsumedCapacity.TOTAL;
    if (r instanceof GetItemRequest g) {
      return g.toBuilder().returnConsumedCapacity(total).build();
    } else if (r instanceof QueryRequest q) {
      return q.toBuilder().returnConsumedCapacity(total).build();
    } else if (r instanceof PutItemRequest p) {
      return p.toBuilder().returnConsumedCapacity(total).build();
    } else if (r instanceof DeleteItemRequest d) {
      return d.toBuilder().returnConsumedCapacity(total).build();
    } else if (r instanceof TransactWriteItemsRequest t) {
      return t.toBuilder().returnConsumedCapacity(total).build();
    }
    return r;
  }

  @Override
  public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
    if (!armed) {
      return;
    }
    REQUESTS.increment();
    SdkResponse r = context.response();
    if (r instanceof GetItemResponse g) {
      READ.add(units(g.consumedCapacity()));
    } else if (r instanceof QueryResponse q) {
      READ.add(units(q.consumedCapacity()));
    } else if (r instanceof PutItemResponse p) {
      WRITE.add(units(p.consumedCapacity()));
    } else if (r instanceof DeleteItemResponse d) {
      WRITE.add(units(d.consumedCapacity()));
    } else if (r instanceof TransactWriteItemsResponse t && t.hasConsumedCapacity()) {
      t.consumedCapacity().forEach(c -> WRITE.add(units(c)));
    }
  }

  private static double units(ConsumedCapacity c) {
    return c == null || c.capacityUnits() == null ? 0 : c.capacityUnits();
  }
}
