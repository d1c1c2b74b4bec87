package dev.agentauth.verifier.cli;

/**
 * A usage or input problem that stops the run with exit code 2: a missing or unreadable file,
 * malformed JSON, an unusable keys document or keys URL. The message is one line, shown as is.
 */
final class InputException extends Exception {

  private static final long serialVersionUID = 1L;

  InputException(String message) {
    super(message);
  }
}
