package dev.agentauth.server.store;

import java.time.Instant;

/**
 * A receipt. {@code payloadJson} is the unsigned receipt object (every member but {@code
 * signature}) as canonical JSON, fixed at decision time; {@code signedJson} is the complete signed
 * receipt, null while pending. The other columns are copies of payload members kept for filtering.
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
