package dev.agentauth.client;

import dev.agentauth.model.Problem;

/**
 * HTTP 413 {@code payload_too_large}: the request body exceeds the service's 1 MiB limit. Not
 * retried.
 */
public class PayloadTooLargeException extends ApiException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what happened, without secrets
   * @param statusCode the HTTP status (413)
   * @param problem the parsed problem body, or {@code null}
   * @param requestId the response's {@code X-Request-Id}, or {@code null}
   */
  public PayloadTooLargeException(
      String message, int statusCode, Problem problem, String requestId) {
    super(message, statusCode, problem, requestId);
  }
}
