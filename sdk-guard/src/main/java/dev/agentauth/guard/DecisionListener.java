package dev.agentauth.guard;

/**
 * Observes every decision the guard makes, for metrics, logs or audit trails: service decisions,
 * SDK fallback decisions and local denials alike, before the tool runs (on allow) or the error
 * result is returned.
 *
 * <pre>{@code
 * DecisionListener metrics = d -> registry
 *     .timer("agentauth.guard", "tool", d.toolName(), "decision", d.decision().value())
 *     .record(d.latency());
 * }</pre>
 *
 * <p>Called on the thread that decided (a transport, Reactor or OkHttp thread): keep it short and
 * non-blocking. An exception it throws is logged and otherwise ignored; it never changes the
 * outcome of the call. Must be thread-safe.
 */
@FunctionalInterface
public interface DecisionListener {

  /**
   * Receives one decision.
   *
   * @param decision what was decided for one tool call
   */
  void onDecision(GuardDecision decision);
}
