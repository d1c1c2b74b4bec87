package dev.agentauth.client;

import dev.agentauth.model.Problem;

/**
 * HTTP 409: the request conflicts with the resource's state: {@code already_revoked}, {@code
 * escalation_conflict}, {@code bundle_exists}, or {@code idempotency_conflict} (an idempotency key
 * reused with a different body). Not retried.
 */
public class ConflictException extends ApiException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what happened, without secrets
   * @param statusCode the HTTP status (409)
   * @param problem the parsed problem body, or {@code null}
   * @param requestId the response's {@code X-Request-Id}, or {@code null}
   */
  public ConflictException(String message, int statusCode, Problem problem, String requestId) {
    super(message, statusCode, problem, requestId);
  }
}
