package dev.agentauth.client;

/**
 * The call's timeout ran out before a complete answer arrived (connect, send, server time and
 * reading, retries included). Not to be confused with an HTTP 408 answer, which is an {@link
 * ApiException}. For {@code /v1/check} a fallback policy turns it into fallback results with a
 * {@code *_timeout} reason instead.
 */
public class RequestTimeoutException extends ConnectionException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what happened, including the timeout that ran out
   * @param requestId the {@code X-Request-Id} when response headers had arrived, else {@code null}
   * @param cause the transport failure
   */
  public RequestTimeoutException(String message, String requestId, Throwable cause) {
    super(message, requestId, cause);
  }
}
