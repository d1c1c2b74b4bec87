package dev.agentauth.client;

import dev.agentauth.model.Problem;
import java.time.Duration;

/**
 * HTTP 429 {@code rate_limited}: the API key exceeded the service's request rate. The client
 * retries 429 answers itself, waiting as long as {@code Retry-After} asks, while the call's timeout
 * allows; this is thrown when retries ran out or the wait would outlast the timeout.
 */
public class RateLimitException extends ApiException {
  private static final long serialVersionUID = 1L;

  private final Duration retryAfter;

  /**
   * Creates the exception.
   *
   * @param message what happened, without secrets
   * @param statusCode the HTTP status (429)
   * @param problem the parsed problem body, or {@code null}
   * @param requestId the response's {@code X-Request-Id}, or {@code null}
   * @param retryAfter the wait the {@code Retry-After} header asked for, or {@code null}
   */
  public RateLimitException(
      String message, int statusCode, Problem problem, String requestId, Duration retryAfter) {
    super(message, statusCode, problem, requestId);
    this.retryAfter = retryAfter;
  }

  /**
   * Returns how long the service asked the client to wait ({@code Retry-After}), or {@code null}
   * when the response did not say.
   */
  public Duration retryAfter() {
    return retryAfter;
  }
}
