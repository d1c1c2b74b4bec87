package dev.agentauth.verifier;

import java.util.Objects;

/**
 * The outcome of verifying one receipt.
 *
 * @param valid whether every step passed
 * @param failedStep the first step that failed, or {@code null} when {@code valid}
 * @param message a human-readable reason naming what was expected and what was found (for a valid
 *     receipt, which key verified it)
 * @param receiptId the receipt's {@code receipt_id} when it could be read (a string member), else
 *     {@code null}; for information only unless {@code valid}
 */
public record VerificationResult(
    boolean valid, VerificationStep failedStep, String message, String receiptId) {

  /**
   * Checks that a result is valid exactly when it names no failed step.
   *
   * @param valid whether every step passed
   * @param failedStep the first failed step, or {@code null} when valid
   * @param message the reason
   * @param receiptId the receipt id, or {@code null}
   * @throws IllegalArgumentException if {@code valid} and {@code failedStep != null}, or neither
   * @throws NullPointerException if {@code message} is null
   */
  public VerificationResult {
    Objects.requireNonNull(message, "message");
    if (valid == (failedStep != null)) {
      throw new IllegalArgumentException(
          "a valid result has no failed step and an invalid one has one; got valid="
              + valid
              + ", failedStep="
              + failedStep);
    }
  }

  static VerificationResult failure(VerificationStep step, String message, String receiptId) {
    return new VerificationResult(false, step, message, receiptId);
  }
}
