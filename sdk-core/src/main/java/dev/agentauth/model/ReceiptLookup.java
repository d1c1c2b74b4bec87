package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import java.util.Objects;

/**
 * The body of {@code GET /v1/receipts/{receipt_id}}, a union on {@code status}: {@code pending} is
 * a {@link PendingReceipt} (same members as the envelope), {@code signed} is a {@link Signed}
 * holding the {@link SignedReceipt} under {@code receipt}. Any other {@code status} fails to read.
 */
@JsonDeserialize(using = ReceiptLookupDeserializer.class)
public sealed interface ReceiptLookup permits PendingReceipt, ReceiptLookup.Signed {

  /** Returns the receipt's ULID. */
  String receiptId();

  /**
   * The {@code signed} variant: {@code {"status": "signed", "receipt": {...}}}.
   *
   * @param status always {@value #STATUS}
   */
  @JsonDeserialize(using = JsonDeserializer.None.class)
  record Signed(
      @JsonProperty("status") String status, @JsonProperty("receipt") SignedReceipt receipt)
      implements ReceiptLookup {

    /** The only {@code status} value of this variant. */
    public static final String STATUS = "signed";

    /**
     * Checks the discriminator; a missing {@code status} defaults to {@value #STATUS}.
     *
     * @throws IllegalArgumentException if {@code status} is neither null nor {@value #STATUS}
     * @throws NullPointerException if {@code receipt} is null
     */
    public Signed {
      if (status == null) {
        status = STATUS;
      } else if (!STATUS.equals(status)) {
        throw new IllegalArgumentException(
            "expected status \"" + STATUS + "\", found: \"" + status + "\"");
      }
      Objects.requireNonNull(receipt, "receipt");
    }

    /** Returns the {@code signed} body for {@code receipt}. */
    public Signed(SignedReceipt receipt) {
      this(STATUS, receipt);
    }

    @Override
    public String receiptId() {
      return receipt.receiptId();
    }
  }
}
