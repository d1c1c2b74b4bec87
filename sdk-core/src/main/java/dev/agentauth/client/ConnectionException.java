package dev.agentauth.client;

/**
 * No complete answer arrived: the connection was refused, reset or dropped mid-body, the host did
 * not resolve, TLS failed, or (subclass {@link RequestTimeoutException}) the call's timeout ran
 * out. Retried automatically (with the same {@code Idempotency-Key}) before this is thrown; for
 * {@code /v1/check} a fallback policy turns it into fallback results with a {@code *_unreachable}
 * reason ({@code *_timeout} for a timeout) instead.
 *
 * <p>The request may or may not have reached the service. Retrying a POST or DELETE with the same
 * idempotency key (see {@link RequestOptions.Builder#idempotencyKey(String)}) is safe.
 */
public class ConnectionException extends AgentAuthException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what happened, without secrets
   * @param requestId the {@code X-Request-Id} when response headers had arrived, else {@code null}
   * @param cause the transport failure
   */
  public ConnectionException(String message, String requestId, Throwable cause) {
    super(message, requestId, cause);
  }
}
