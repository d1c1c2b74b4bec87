package dev.agentauth.server.store;

/**
 * The store cannot take this request now but may soon: a wait for the writer, a connection or the
 * signer ran out of time, or the service is shedding load. Answered as 503 {@code unavailable} with
 * {@code Retry-After}; never a client's fault and never a 500.
 */
public class StoreUnavailableException extends StoreException {
  private static final long serialVersionUID = 1L;

  private final long retryAfterSeconds;

  public StoreUnavailableException(String message, long retryAfterSeconds) {
    super(message);
    this.retryAfterSeconds = Math.max(1, retryAfterSeconds);
  }

  public StoreUnavailableException(String message, long retryAfterSeconds, Throwable cause) {
    super(message, cause);
    this.retryAfterSeconds = Math.max(1, retryAfterSeconds);
  }

  /** Seconds the client should wait before retrying (at least 1). */
  public long retryAfterSeconds() {
    return retryAfterSeconds;
  }
}
