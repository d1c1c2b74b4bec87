package dev.agentauth.client;

import dev.agentauth.model.Problem;

/**
 * HTTP 404 {@code not_found}: no such authorization, bundle, escalation, receipt or workspace in
 * the API key's workspace (another workspace's ids are not found either). Not retried.
 */
public class NotFoundException extends ApiException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what happened, without secrets
   * @param statusCode the HTTP status (404)
   * @param problem the parsed problem body, or {@code null}
   * @param requestId the response's {@code X-Request-Id}, or {@code null}
   */
  public NotFoundException(String message, int statusCode, Problem problem, String requestId) {
    super(message, statusCode, problem, requestId);
  }
}
