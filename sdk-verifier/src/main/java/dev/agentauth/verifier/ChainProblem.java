package dev.agentauth.verifier;

import java.util.Objects;

/**
 * One defect {@link ChainVerifier} found in an authorization's receipt chain.
 *
 * @param kind what is wrong
 * @param index the receipt's position in the list given to the chain verifier, or {@code -1} for a
 *     problem of the chain as a whole (such as {@link Kind#MISSING_CREATE})
 * @param receiptId the receipt's {@code receipt_id} when readable, else {@code null}
 * @param message a human-readable explanation
 */
public record ChainProblem(Kind kind, int index, String receiptId, String message) {

  /**
   * Checks the required components.
   *
   * @param kind what is wrong
   * @param index the receipt's position in the input, or {@code -1}
   * @param receiptId the receipt's id, or {@code null}
   * @param message the explanation
   * @throws NullPointerException if {@code kind} or {@code message} is null
   */
  public ChainProblem {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(message, "message");
  }

  /** The kinds of chain defects. */
  public enum Kind {
    /** A receipt failed verification (other than by naming another workspace). */
    INVALID_RECEIPT,
    /** No valid {@code authorization.create} receipt. */
    MISSING_CREATE,
    /** More than one {@code authorization.create} receipt (reported on each extra one). */
    DUPLICATE_CREATE,
    /** More than one {@code authorization.revoke} receipt (reported on each extra one). */
    DUPLICATE_REVOKE,
    /** The {@code authorization.create} receipt is not the first receipt of the chain. */
    CREATE_NOT_FIRST,
    /** A receipt's {@code issued_at} is earlier than the one before it. */
    OUT_OF_ORDER,
    /** A receipt belongs to another workspace than the verifier's keys document. */
    MIXED_WORKSPACE,
    /** A receipt's {@code authorization_id} differs from the chain's. */
    MIXED_AUTHORIZATION,
    /** A scope receipt other than {@code deny} was issued after the revocation. */
    USE_AFTER_REVOKE
  }
}
