package io.pagemark.dynamo;

import java.io.IOException;
import java.io.UncheckedIOException;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;

/**
 * An HTTP client whose transport failures the SDK can retry. The URL-connection client reports a connection the
 * server closed under it (an idle keep-alive connection, typically: "Unexpected end of file from server") as an
 * {@link UncheckedIOException} while it sends a request or waits for the answer's head, and the SDK's retry stage
 * lets unchecked exceptions through untried. This hands the SDK the {@link IOException} instead, which its retry
 * policy treats as any other transport failure, as it does with the Apache client.
 */
final class RetryableTransport implements SdkHttpClient {
  private final SdkHttpClient delegate;

  RetryableTransport(SdkHttpClient delegate) {
    this.delegate = delegate;
  }

  @Override
  public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
    ExecutableHttpRequest prepared = delegate.prepareRequest(request);
    return new ExecutableHttpRequest() {
      @Override
      public HttpExecuteResponse call() throws IOException {
        try {
          return prepared.call();
        } catch (UncheckedIOException e) {
          throw e.getCause();
        }
      }

      @Override
      public void abort() {
        prepared.abort();
      }
    };
  }

  @Override
  public String clientName() {
    return delegate.clientName();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
