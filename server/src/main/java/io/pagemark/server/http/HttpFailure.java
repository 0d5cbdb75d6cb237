package io.pagemark.server.http;

/**
 * A request the server answers with an error status: the status, a message that says what was wrong and what to do,
 * and for 503 how many seconds to wait before retrying. Both the JSON API and the web page render it.
 */
final class HttpFailure extends Exception {
  private static final long serialVersionUID = 1L;
  /** Seconds a client should wait after a 503 (DynamoDB or the index store failing). */
  static final int RETRY_AFTER_SECONDS = 5;

  private final int status;

  HttpFailure(int status, String message, Throwable cause) {
    super(message, cause, false, false);
    this.status = status;
  }

  static HttpFailure badRequest(String message) {
    return new HttpFailure(400, message, null);
  }

  static HttpFailure notFound(String message) {
    return new HttpFailure(404, message, null);
  }

  static HttpFailure unavailable(String message, Throwable cause) {
    return new HttpFailure(503, message, cause);
  }

  int status() {
    return status;
  }

  /** The Retry-After header's value, or null when the status needs none. */
  String retryAfter() {
    return status == 503 ? Integer.toString(RETRY_AFTER_SECONDS) : null;
  }
}
