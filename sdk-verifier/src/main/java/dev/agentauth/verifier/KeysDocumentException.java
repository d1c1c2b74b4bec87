package dev.agentauth.verifier;

/**
 * Thrown while building a {@link ReceiptVerifier} when the keys document (the {@code GET
 * /v1/workspaces/{id}/keys} response) is missing, unreadable or malformed, or when keys are pinned
 * ({@link ReceiptVerifier.Builder#trustedKeyFingerprints}) and the document holds none of them.
 * This is a configuration error, kept apart from receipt verification failures, which are never
 * thrown by {@link ReceiptVerifier#verify(String)}. The message names the offending member, such as
 * {@code keys[1].public_key}, or lists the document's key fingerprints.
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
