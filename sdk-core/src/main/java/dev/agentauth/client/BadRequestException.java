package dev.agentauth.client;

import dev.agentauth.model.Problem;

/**
 * HTTP 400: the service rejected the request as invalid ({@code invalid_request}, {@code
 * pii_not_allowed}, {@code bundle_not_found}). {@link #fieldErrors()} names the offending members,
 * e.g. {@code scopes[1].name}. Not retried: the same request fails again.
 */
public class BadRequestException extends ApiException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what happened, without secrets
   * @param statusCode the HTTP status (400)
   * @param problem the parsed problem body, or {@code null}
   * @param requestId the response's {@code X-Request-Id}, or {@code null}
   */
  public BadRequestException(String message, int statusCode, Problem problem, String requestId) {
    super(message, statusCode, problem, requestId);
  }
}
