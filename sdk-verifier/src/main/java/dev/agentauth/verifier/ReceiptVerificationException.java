package dev.agentauth.verifier;

import java.util.Objects;

/**
 * Thrown by {@link ReceiptVerifier#verifyOrThrow(String)} when a receipt fails verification. The
 * message names the failed step and the reason; {@link #step()} returns the step.
 */
public final class ReceiptVerificationException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** The failed step. */
  private final VerificationStep step;

  /** The receipt id, or {@code null}. */
  private final String receiptId;

  /**
   * Creates the exception for a failed result.
   *
   * @param result an invalid verification result
   * @throws IllegalArgumentException if {@code result} is valid
   */
  ReceiptVerificationException(VerificationResult result) {
    super(messageOf(result));
    this.step = result.failedStep();
    this.receiptId = result.receiptId();
  }

  private static String messageOf(VerificationResult result) {
    Objects.requireNonNull(result, "result");
    if (result.valid()) {
      throw new IllegalArgumentException("result is valid; nothing failed");
    }
    return "receipt "
        + (result.receiptId() == null ? "(no readable receipt_id)" : result.receiptId())
        + " failed verification at step "
        + result.failedStep()
        + ": "
        + result.message();
  }

  /**
   * Returns the step that failed.
   *
   * @return the failed step, never null
   */
  public VerificationStep step() {
    return step;
  }

  /**
   * Returns the receipt's {@code receipt_id} when it could be read.
   *
   * @return the receipt id, or {@code null}
   */
  public String receiptId() {
    return receiptId;
  }
}
