package io.pagemark.server.http;

import java.util.Locale;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/**
 * Where a request's time went, for its {@code Server-Timing} header: the time spent waiting for DynamoDB (each HTTP
 * exchange of the SDK, retries included) and the rest of the handler (routing, the index's lookup, JSON or HTML,
 * headers). Per handler thread: the synchronous client runs its interceptors on the thread that called it.
 */
final class RequestTiming implements ExecutionInterceptor {
  private static final ExecutionAttribute<Long> SENT = new ExecutionAttribute<>("pagemark.sentNanos");
  private static final ThreadLocal<long[]> DYNAMO_NANOS = ThreadLocal.withInitial(() -> new long[1]);

  /** Starts a request's account on this thread. */
  static void start() {
    DYNAMO_NANOS.get()[0] = 0;
  }

  /**
   * The header value for a request that started at {@code startedNanos} on this thread:
   * {@code dynamodb;dur=MS, app;dur=MS} (milliseconds, three decimals; app = the handler's time without DynamoDB's).
   */
  static String header(long startedNanos) {
    long total = System.nanoTime() - startedNanos;
    long dynamo = DYNAMO_NANOS.get()[0];
    return String.format(Locale.ROOT, "dynamodb;dur=%.3f, app;dur=%.3f", dynamo / 1e6, (total - dynamo) / 1e6);
  }

  @Override
  public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
    attributes.putAttribute(SENT, System.nanoTime());
  }

  @Override
  public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
    Long sent = attributes.getAttribute(SENT);
    if (sent != null) {
      DYNAMO_NANOS.get()[0] += System.nanoTime() - sent;
    }
  }
}
