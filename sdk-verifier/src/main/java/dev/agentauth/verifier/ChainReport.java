package dev.agentauth.verifier;

import java.util.List;

/**
 * What {@link ChainVerifier} found about one authorization's receipt chain.
 *
 * @param authorizationId the chain's {@code authorization_id} (from its create receipt, else its
 *     first valid receipt), or {@code null} when no receipt was valid
 * @param results each receipt's own verification result, in the order given
 * @param problems every defect found, in the order found; empty when the chain is valid
 */
public record ChainReport(
    String authorizationId, List<VerificationResult> results, List<ChainProblem> problems) {

  /**
   * Copies the lists.
   *
   * @param authorizationId the chain's authorization id, or {@code null}
   * @param results each receipt's result, in input order
   * @param problems every defect found
   * @throws NullPointerException if a list is null or holds null
   */
  public ChainReport {
    results = List.copyOf(results);
    problems = List.copyOf(problems);
  }

  /**
   * Returns whether the chain has no problem: every receipt valid, one create first, at most one
   * revoke, ordered, one authorization, nothing but denials after the revocation.
   *
   * @return {@code problems().isEmpty()}
   */
  public boolean valid() {
    return problems.isEmpty();
  }
}
