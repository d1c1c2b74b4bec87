package dev.agentauth.client;

import dev.agentauth.model.Problem;

/**
 * HTTP 410 {@code nonce_gone}: the confirmation nonce expired, was already used, is unknown or its
 * authorization was revoked. Re-check to obtain a fresh nonce. Not retried.
 */
public class GoneException extends ApiException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what happened, without secrets
   * @param statusCode the HTTP status (410)
   * @param problem the parsed problem body, or {@code null}
   * @param requestId the response's {@code X-Request-Id}, or {@code null}
   */
  public GoneException(String message, int statusCode, Problem problem, String requestId) {
    super(message, statusCode, problem, requestId);
  }
}
