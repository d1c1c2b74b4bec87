package dev.agentauth.verifier;

/**
 * The checks {@link ReceiptVerifier} runs, in the order it runs them. The first one that fails is
 * reported by {@link VerificationResult#failedStep()}.
 *
 * <p>They follow the service's "Offline verification" algorithm (steps 1–7), with the receipt
 * format's schema rules folded into {@link #SCHEMA} and step 7 split in three.
 */
public enum VerificationStep {
  /** The input is JSON text holding one object, with no duplicate member names. */
  PARSE,
  /** Step 1: {@code version} is the string {@code "1.0"}. */
  VERSION,
  /**
   * Step 2 and the format's schema rules: every required member present with its type, no unknown
   * members, exactly one of {@code scope}/{@code event}, a known {@code event}, {@code issued_at} a
   * full RFC 3339 instant with an offset, {@code signature} exactly {@code {alg, key_id, value}}
   * with {@code value} unpadded base64url of 64 bytes, {@code policy_eval} only on scope receipts
   * and in its exact shape, event receipts' {@code authorization_id} and {@code resource} rules,
   * and a canonical form (numbers only integers within ±(2<sup>53</sup>−1), no lone surrogates).
   */
  SCHEMA,
  /** Step 3: the decision is one the receipt kind (scope receipt or which event) may carry. */
  PAIRING,
  /** Step 4: {@code signature.alg} is {@code "Ed25519"}. */
  ALGORITHM,
  /** Step 5: {@code issued_at} is at most 5 minutes ahead of the verifier's clock. */
  TIMESTAMP,
  /** The receipt's {@code workspace_id} is the keys document's {@code workspace_id}. */
  WORKSPACE,
  /**
   * Step 7a: the keys document has a key with the receipt's {@code signature.key_id}, and, when the
   * verifier pins keys ({@link ReceiptVerifier.Builder#trustedKeyFingerprints}), that key is
   * pinned: a key of the document that is not pinned is not a key this verifier trusts.
   */
  KEY_NOT_FOUND,
  /**
   * Step 7b: that key was active when the receipt was issued: {@code active_from ≤ issued_at} and
   * ({@code active_until} is null or {@code issued_at < active_until}).
   */
  KEY_NOT_ACTIVE,
  /** Steps 6 and 7c: the Ed25519 signature verifies over the canonical signing payload. */
  SIGNATURE
}
