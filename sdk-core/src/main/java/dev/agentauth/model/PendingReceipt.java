package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import java.time.Instant;

/**
 * The pending receipt envelope: a {@code receipt} member before signing has finished, and the
 * {@code pending} body of {@code GET /v1/receipts/{receipt_id}}. Poll {@code url} for the signed
 * receipt.
 *
 * @param status always {@value #STATUS}
 * @param receiptId the receipt's ULID
 * @param readyAtEstimate estimated time signing completes
 * @param url absolute {@code <public base url>/v1/receipts/<receipt_id>}
 */
@JsonDeserialize(using = JsonDeserializer.None.class)
public record PendingReceipt(
    @JsonProperty("status") String status,
    @JsonProperty("receipt_id") String receiptId,
    @JsonProperty("ready_at_estimate") Instant readyAtEstimate,
    @JsonProperty("url") String url)
    implements ReceiptRef, ReceiptLookup {

  /** The only {@code status} value of the envelope. */
  public static final String STATUS = "pending";

  /**
   * Checks the discriminator; a missing {@code status} defaults to {@value #STATUS}.
   *
   * @throws IllegalArgumentException if {@code status} is neither null nor {@value #STATUS}
   */
  public PendingReceipt {
    if (status == null) {
      status = STATUS;
    } else if (!STATUS.equals(status)) {
      throw new IllegalArgumentException(
          "expected status \"" + STATUS + "\", found: \"" + status + "\"");
    }
  }

  /** Returns an envelope with {@code status} {@value #STATUS}. */
  public PendingReceipt(String receiptId, Instant readyAtEstimate, String url) {
    this(STATUS, receiptId, readyAtEstimate, url);
  }
}
