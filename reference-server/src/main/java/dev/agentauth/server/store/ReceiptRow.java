package dev.agentauth.server.store;

import dev.agentauth.verifier.signing.SignedReceiptText;
import java.time.Instant;

/**
 * A receipt. {@code payloadJson} is the unsigned receipt object (every member but {@code
 * signature}) as canonical JSON, fixed at decision time; {@code signedJson} is the complete signed
 * receipt, null while pending: the payload with a {@code signature} member appended (see {@link
 * SignedReceiptText}), which is what lets a store keep only that member. The other columns are
 * copies of payload members kept for filtering.
 *
 * <p>The constructor throws {@link IllegalArgumentException} if {@code signedJson} is not {@code
 * payloadJson} with a signature member appended.
 */
public record ReceiptRow(
    String workspaceId,
    String receiptId,
    String authorizationId,
    String userId,
    String resource,
    String sessionId,
    String scope,
    String event,
    String decision,
    Instant issuedAt,
    String payloadJson,
    String signedJson) {

  public ReceiptRow {
    if (signedJson != null && !SignedReceiptText.isSignedFormOf(payloadJson, signedJson)) {
      throw new IllegalArgumentException(
          "receipt "
              + receiptId
              + ": its signed text must be its payload with a signature member appended");
    }
  }

  public boolean isSigned() {
    return signedJson != null;
  }

  /** This receipt with its signed form. */
  public ReceiptRow withSignedJson(String signed) {
    return new ReceiptRow(
        workspaceId,
        receiptId,
        authorizationId,
        userId,
        resource,
        sessionId,
        scope,
        event,
        decision,
        issuedAt,
        payloadJson,
        signed);
  }
}
