package dev.agentauth.langchain4j;

/**
 * Told of every guarded call that waits for a person ({@code confirm} or {@code escalate}), so that
 * the application can route it: ask its user to approve the nonce in its own UI, or notify the
 * approver. Once approved, the model's next call with the same arguments runs.
 *
 * <p>Called on the thread that executes the tool, before the result goes back to the model: keep it
 * short (queue the work). An exception it throws is logged and otherwise ignored. Must be
 * thread-safe.
 */
@FunctionalInterface
public interface ApprovalListener {

  /**
   * Receives one call waiting for approval.
   *
   * @param request what waits, and the decision object the model receives
   */
  void approvalNeeded(ApprovalRequest request);
}
