package dev.agentauth.server.store;

/** A store failure that is not the client's fault (answered as 500 / 503). */
public class StoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public StoreException(String message) {
    super(message);
  }

  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
