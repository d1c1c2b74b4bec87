package dev.agentauth.client;

import dev.agentauth.model.Problem;

/**
 * HTTP 403 {@code forbidden}: the API key's role may not make this call (an {@code agent} key
 * resolving an escalation, say), or an {@code approver} key sent a {@code resolved_by} other than
 * its own {@code approver_id}. The message carries the service's detail, which names the role and
 * what it lacks. Nothing was changed. Not retried: use a key whose role allows the call.
 */
public class ForbiddenException extends ApiException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what happened, without secrets
   * @param statusCode the HTTP status (403)
   * @param problem the parsed problem body, or {@code null}
   * @param requestId the response's {@code X-Request-Id}, or {@code null}
   */
  public ForbiddenException(String message, int statusCode, Problem problem, String requestId) {
    super(message, statusCode, problem, requestId);
  }
}
