package dev.agentauth.client;

import dev.agentauth.model.Problem;

/** HTTP 401 {@code unauthenticated}: the API key is missing, malformed or unknown. Not retried. */
public class AuthenticationException extends ApiException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what happened, without secrets
   * @param statusCode the HTTP status (401)
   * @param problem the parsed problem body, or {@code null}
   * @param requestId the response's {@code X-Request-Id}, or {@code null}
   */
  public AuthenticationException(
      String message, int statusCode, Problem problem, String requestId) {
    super(message, statusCode, problem, requestId);
  }
}
