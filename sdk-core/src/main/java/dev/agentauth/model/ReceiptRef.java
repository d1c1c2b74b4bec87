package dev.agentauth.model;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;

/**
 * What a {@code receipt} member holds (authorization create and revoke, check results, escalation
 * resolution): the {@link PendingReceipt} envelope by default, or the {@link SignedReceipt} itself
 * when signing finished within {@code ?wait=true}. When reading, an object with {@code signature}
 * is a signed receipt and one with {@code "status": "pending"} an envelope; anything else fails.
 *
 * <pre>{@code
 * if (result.receipt() instanceof SignedReceipt signed) {
 *   verify(signed);
 * } else if (result.receipt() instanceof PendingReceipt pending) {
 *   poll(pending.url());
 * }
 * }</pre>
 */
@JsonDeserialize(using = ReceiptRefDeserializer.class)
public sealed interface ReceiptRef permits PendingReceipt, SignedReceipt {

  /** Returns the receipt's ULID. */
  String receiptId();
}
