package dev.agentauth.client;

/**
 * The service answered with a success status but a body the client cannot read as the expected JSON
 * (empty, truncated, HTML from a proxy, wrong shape). Not retried. The message names the status,
 * content type and the start of the body.
 */
public class MalformedResponseException extends AgentAuthException {
  private static final long serialVersionUID = 1L;

  private final int statusCode;

  /**
   * Creates the exception.
   *
   * @param message what was expected and what was found, without secrets
   * @param statusCode the HTTP status of the response
   * @param requestId the response's {@code X-Request-Id}, or {@code null}
   * @param cause the parse failure, or {@code null}
   */
  public MalformedResponseException(
      String message, int statusCode, String requestId, Throwable cause) {
    super(message, requestId, cause);
    this.statusCode = statusCode;
  }

  /** Returns the HTTP status of the unreadable response. */
  public int statusCode() {
    return statusCode;
  }
}
