package dev.agentauth.server.engine;

import dev.agentauth.model.Decision;
import dev.agentauth.model.Reason;
import dev.agentauth.server.domain.EscalationRow;
import dev.agentauth.server.domain.NonceRow;
import java.time.LocalDate;
import java.util.List;

/**
 * What the engine decided for one check: a result per requested scope, in request order, and the
 * state changes the caller must apply in the same transaction.
 */
public record CheckOutcome(List<ScopeResult> results, List<Change> changes) {

  public CheckOutcome {
    results = List.copyOf(results);
    changes = List.copyOf(changes);
  }

  /** Budget evaluation of a budgeted authorization (all micro-USD). */
  public record Budget(
      long limitMicros, long spentMicros, long estimatedCostMicros, long spentAfterMicros) {}

  /**
   * The decision for one scope.
   *
   * @param budget the budget evaluation when step 8 was reached, else null
   * @param nonce the confirmation nonce of a {@code confirm} result
   * @param escalation the escalation of an {@code escalate} result, or the consumed one of an allow
   *     via escalation
   * @param grantId the confirmation authorization id of an allow via confirmation
   */
  public record ScopeResult(
      String scope,
      Decision.Known decision,
      Reason.Known reason,
      Budget budget,
      NonceRow nonce,
      EscalationRow escalation,
      String grantId) {

    public boolean isAllow() {
      return decision == Decision.Known.ALLOW;
    }
  }

  /** A state change to apply atomically with the decision. */
  public sealed interface Change {}

  /** One more allow for this scope on {@code day}. */
  public record CountAllow(String scope, LocalDate day) implements Change {}

  /** Budget spent grows by {@code amountMicros}. */
  public record SpendBudget(long amountMicros) implements Change {}

  /** A new confirmation nonce. */
  public record CreateNonce(NonceRow nonce) implements Change {}

  /** A new pending escalation. */
  public record CreateEscalation(EscalationRow escalation) implements Change {}

  /** An escalation approval consumed by this allow (the row as updated). */
  public record ConsumeApproval(EscalationRow escalation) implements Change {}
}
