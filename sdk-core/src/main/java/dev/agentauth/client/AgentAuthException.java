package dev.agentauth.client;

/**
 * Root of every failure the agentauth client reports. It is unchecked so that the client works
 * inside lambdas, streams and {@link java.util.concurrent.CompletableFuture} chains; catch it (or
 * one of its subclasses) where you can act on the failure.
 *
 * <ul>
 *   <li>{@link ApiException}: the service answered with an error status (one subclass per status a
 *       caller handles differently).
 *   <li>{@link ConnectionException}: no complete answer (connection refused or dropped, DNS, TLS);
 *       {@link RequestTimeoutException} when the call's timeout ran out.
 *   <li>{@link MalformedResponseException}: a successful status with a body the client cannot read.
 *   <li>{@link ReceiptWaitTimeoutException}: {@code awaitSigned} gave up before signing finished.
 * </ul>
 *
 * <p>Denials from {@code /v1/check} are results, never exceptions. Arguments the client can reject
 * without asking the service (empty scopes, a missing {@code expires_at}) fail fast with {@link
 * IllegalArgumentException} instead: they are programming errors, not runtime conditions.
 *
 * <p>Messages never contain the API key.
 */
public abstract class AgentAuthException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String requestId;

  /**
   * Creates an exception.
   *
   * @param message what happened, without secrets
   * @param requestId the response's {@code X-Request-Id}, or {@code null} when no response arrived
   * @param cause the underlying failure, or {@code null}
   */
  protected AgentAuthException(String message, String requestId, Throwable cause) {
    super(message, cause);
    this.requestId = requestId;
  }

  /**
   * Returns the {@code X-Request-Id} of the response that caused this failure (quote it when
   * reporting a problem to the service operator), or {@code null} when no response was received.
   */
  public String requestId() {
    return requestId;
  }
}
