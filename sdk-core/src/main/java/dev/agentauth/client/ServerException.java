package dev.agentauth.client;

import dev.agentauth.model.Problem;

/**
 * HTTP 5xx: the service failed ({@code internal_error}) or a gateway in front of it did (502, 503,
 * 504). 500, 502, 503 and 504 are retried before this is thrown; for {@code /v1/check} a fallback
 * policy turns it into fallback results with a {@code *_server_error} reason instead.
 */
public class ServerException extends ApiException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what happened, without secrets
   * @param statusCode the HTTP status (5xx)
   * @param problem the parsed problem body, or {@code null}
   * @param requestId the response's {@code X-Request-Id}, or {@code null}
   */
  public ServerException(String message, int statusCode, Problem problem, String requestId) {
    super(message, statusCode, problem, requestId);
  }
}
