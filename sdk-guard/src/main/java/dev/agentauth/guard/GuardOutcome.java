package dev.agentauth.guard;

import dev.agentauth.client.CheckParams;
import dev.agentauth.model.CheckResult;
import dev.agentauth.model.Decision;
import java.util.Map;

/**
 * What {@link ToolGuard} decided for one call: run the tool ({@link #allowed()}), or return the
 * decision object {@link #body()} to the model instead. Adapters turn the body into their
 * framework's tool result: an MCP error result, a Spring AI or LangChain4j text result.
 */
public final class GuardOutcome {
  private final GuardDecision decision;
  private final CheckResult check;
  private final Map<String, Object> body;
  private final Pending pending;

  /** What a re-check of the same call needs: the same parameters, and when the call started. */
  record Pending(GuardedTool tool, GuardCall call, String userId, CheckParams params, long start) {}

  GuardOutcome(
      GuardDecision decision, CheckResult check, Map<String, Object> body, Pending pending) {
    this.decision = decision;
    this.check = check;
    this.body = body;
    this.pending = pending;
  }

  /**
   * Returns whether the tool may run: an {@code allow} of the service or of the fallback policy.
   */
  public boolean allowed() {
    return body == null;
  }

  /** Returns the decision, as the listener was told of it. */
  public GuardDecision decision() {
    return decision;
  }

  /**
   * Returns the service's (or the client's fallback) result, or {@code null} for a local denial and
   * for a call the service refused the guard's key for.
   */
  public CheckResult check() {
    return check;
  }

  /**
   * Returns the decision object for the model ({@code decision}, {@code reason}, the fields of the
   * decision, {@code message}; see {@link GuardResults}), or {@code null} when {@linkplain
   * #allowed() allowed}.
   */
  public Map<String, Object> body() {
    return body;
  }

  /** Returns {@link #body()} as JSON text, or {@code null} when {@linkplain #allowed() allowed}. */
  public String text() {
    return body == null ? null : GuardResults.json(body);
  }

  /**
   * Returns whether this is a {@code confirm} with a nonce that the guard can re-check after the
   * user approved it ({@link ToolGuard#recheckAsync(GuardOutcome, java.util.concurrent.Executor)}).
   */
  public boolean confirmable() {
    return pending != null
        && check != null
        && Decision.CONFIRM.equals(check.decision())
        && check.confirmNonce() != null;
  }

  Pending pending() {
    return pending;
  }

  @Override
  public String toString() {
    return "GuardOutcome{" + decision.decision() + " " + decision.reason() + "}";
  }
}
