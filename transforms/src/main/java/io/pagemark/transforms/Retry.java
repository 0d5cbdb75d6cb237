package io.pagemark.transforms;

import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.apache.beam.sdk.metrics.Counter;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;

/**
 * Retries a DynamoDB call that was throttled or failed in transit, with exponential backoff and full jitter, after
 * the SDK's own retries gave up. Anything else (a validation error, a missing table) fails at once.
 */
final class Retry {
  static final int MAX_ATTEMPTS = 10;
  private static final long BASE_MILLIS = 100;
  private static final long CAP_MILLIS = 20_000;

  private Retry() {}

  static <T> T call(String what, Counter retries, Supplier<T> call) {
    for (int attempt = 1; ; attempt++) {
      try {
        return call.get();
      } catch (RuntimeException e) {
        if (!retryable(e) || attempt >= MAX_ATTEMPTS) {
          throw attempt > 1
              ? new IllegalStateException(what + " failed after " + attempt + " attempts: " + e.getMessage(), e)
              : e;
        }
        retries.inc();
        long cap = Math.min(CAP_MILLIS, BASE_MILLIS << Math.min(attempt, 20));
        try {
          Thread.sleep(ThreadLocalRandom.current().nextLong(cap / 2, cap + 1));
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(what + " interrupted while backing off", e);
        }
      }
    }
  }

  static boolean retryable(RuntimeException e) {
    if (e instanceof DynamoDbException) {
      DynamoDbException d = (DynamoDbException) e;
      String code = d.awsErrorDetails() == null ? "" : d.awsErrorDetails().errorCode();
      return d.isThrottlingException()
          || d.statusCode() >= 500
          || "ProvisionedThroughputExceededException".equals(code)
          || "RequestLimitExceeded".equals(code)
          || "ThrottlingException".equals(code);
    }
    return e instanceof SdkClientException;
  }
}
