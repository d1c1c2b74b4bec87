package dev.agentauth.client;

import dev.agentauth.model.Problem;

/**
 * HTTP 402 {@code plan_required}: the workspace plan lacks a Pro+ feature the request uses ({@code
 * requires_escalation_for}, {@code budget_limit_micros}, escalation resolution). Not retried.
 */
public class PlanRequiredException extends ApiException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what happened, without secrets
   * @param statusCode the HTTP status (402)
   * @param problem the parsed problem body, or {@code null}
   * @param requestId the response's {@code X-Request-Id}, or {@code null}
   */
  public PlanRequiredException(String message, int statusCode, Problem problem, String requestId) {
    super(message, statusCode, problem, requestId);
  }
}
