package dev.agentauth.verifier;

/**
 * Thrown while building a {@link ReceiptVerifier} when the keys document (the {@code GET
 * /v1/workspaces/{id}/keys} response) is missing, unreadable or malformed. This is a configuration
 * error, kept apart from receipt verification failures, which are never thrown by {@link
 * ReceiptVerifier#verify(String)}. The message names the offending member, such as {@code
 * keys[1].public_key}.
 */
public final class KeysDocumentException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  KeysDocumentException(String message) {
    super(message);
  }

  KeysDocumentException(String message, Throwable cause) {
    super(message, cause);
  }
}
