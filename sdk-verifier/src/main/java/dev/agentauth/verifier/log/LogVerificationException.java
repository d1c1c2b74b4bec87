package dev.agentauth.verifier.log;

/**
 * A receipt-log object failed a check: a malformed note, checkpoint, key or proof, a signature that
 * does not verify, or a proof that does not lead to the expected root. The message says what was
 * expected and what was found.
 */
public final class LogVerificationException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what was expected and what was found
   */
  public LogVerificationException(String message) {
    super(message);
  }
}
