package io.pagemark.transforms;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.atomic.AtomicInteger;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.MetricName;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

class RetryTest {
  static final class CountingCounter implements Counter {
    int n;

    @Override
    public void inc() {
      n++;
    }

    @Override
    public void inc(long k) {
      n += (int) k;
    }

    @Override
    public void dec() {}

    @Override
    public void dec(long k) {}

    @Override
    public MetricName getName() {
      return MetricName.named("test", "retries");
    }
  }

  @Test
  void throttlingAndTransportErrorsAreRetriedUntilTheCallSucceeds() {
    AtomicInteger calls = new AtomicInteger();
    CountingCounter retries = new CountingCounter();
    String result = Retry.call("scan", retries, () -> {
      int n = calls.incrementAndGet();
      if (n == 1) {
        throw ProvisionedThroughputExceededException.builder().message("slow down").statusCode(400)
            .awsErrorDetails(AwsErrorDetails.builder().errorCode("ProvisionedThroughputExceededException").build())
            .build();
      }
      if (n == 2) {
        throw SdkClientException.create("connection reset");
      }
      return "page";
    });
    assertThat(result, is("page"));
    assertThat(calls.get(), is(3));
    assertThat(retries.n, is(2));
  }

  @Test
  void otherErrorsFailAtOnce() {
    AtomicInteger calls = new AtomicInteger();
    ResourceNotFoundException e = assertThrows(ResourceNotFoundException.class, () ->
        Retry.call("scan", new CountingCounter(), () -> {
          calls.incrementAndGet();
          throw ResourceNotFoundException.builder().message("no table").statusCode(400).build();
        }));
    assertThat(e.getMessage(), containsString("no table"));
    assertThat(calls.get(), is(1));
  }

  @Test
  void serverErrorsAreRetryableAndValidationErrorsAreNot() {
    assertThat(Retry.retryable((RuntimeException) DynamoDbException.builder().statusCode(500).build()), is(true));
    assertThat(Retry.retryable((RuntimeException) DynamoDbException.builder().statusCode(400)
        .awsErrorDetails(AwsErrorDetails.builder().errorCode("ValidationException").build()).build()), is(false));
    assertThat(Retry.retryable(new IllegalArgumentException("bug")), is(false));
  }
}
