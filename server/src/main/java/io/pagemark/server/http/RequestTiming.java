package io.pagemark.server.http;

import java.util.Locale;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/**
 * Where a request's time went, for its {@code Server-Timing} header: waiting for DynamoDB (the SDK's HTTP exchanges,
 * retries included), the SDK's own work around them (marshalling, signing, parsing the items, backoff), and the rest
 * of the handler (routing, the index's lookup, JSON or HTML, headers). Per handler thread: the synchronous client
 * runs its interceptors on the thread that called it.
 */
final class RequestTiming implements ExecutionInterceptor {
  private static final ExecutionAttribute<Long> STARTED = new ExecutionAttribute<>("pagemark.startedNanos");
  private static final ExecutionAttribute<Long> SENT = new ExecutionAttribute<>("pagemark.sentNanos");
  /** Per thread: nanoseconds in SDK calls, and of those on the wire. */
  private static final ThreadLocal<long[]> NANOS = ThreadLocal.withInitial(() -> new long[2]);

  /** Starts a request's account on this thread. */
  static void start() {
    long[] n = NANOS.get();
    n[0] = 0;
    n[1] = 0;
  }

  /**
   * The header value for a request that started at {@code startedNanos} on this thread, in milliseconds with three
   * decimals: {@code dynamodb;dur=WIRE, sdk;dur=SDK, app;dur=REST}, the three adding up to the handler's time.
   */
  static String header(long startedNanos) {
    long total = System.nanoTime() - startedNanos;
    long[] n = NANOS.get();
    long calls = Math.min(n[0], total);
    long wire = Math.min(n[1], calls);
    return String.format(Locale.ROOT, "dynamodb;dur=%.3f, sdk;dur=%.3f, app;dur=%.3f", wire / 1e6,
        (calls - wire) / 1e6, (total - calls) / 1e6);
  }

  @Override
  public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
    attributes.putAttribute(STARTED, System.nanoTime());
  }

  @Override
  public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
    attributes.putAttribute(SENT, System.nanoTime());
  }

  @Override
  public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
    Long sent = attributes.getAttribute(SENT);
    if (sent != null) {
      NANOS.get()[1] += System.nanoTime() - sent;
    }
  }

  @Override
  public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
    executed(attributes);
  }

  @Override
  public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
    executed(attributes);
  }

  private static void executed(ExecutionAttributes attributes) {
    Long started = attributes.getAttribute(STARTED);
    if (started != null) {
      NANOS.get()[0] += System.nanoTime() - started;
    }
  }
}
