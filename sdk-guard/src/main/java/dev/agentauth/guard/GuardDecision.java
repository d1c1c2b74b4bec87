package dev.agentauth.guard;

import dev.agentauth.model.Decision;
import dev.agentauth.model.FallbackMode;
import dev.agentauth.model.Reason;
import java.time.Duration;
import java.util.Objects;

/**
 * What the guard decided for one tool call, as given to a {@link DecisionListener}.
 *
 * @param toolName the called tool
 * @param scope the scope checked (the tool name unless a scope mapper renamed it)
 * @param userId the caller, or {@code null} when none could be found ({@code missing_user_id})
 * @param authorizationId the authorization checked, or {@code null} on a local denial
 * @param decision {@code allow}, {@code deny}, {@code confirm} or {@code escalate} (or a newer
 *     value the service sent; only {@code allow} runs the tool)
 * @param reason the machine-readable reason, e.g. {@code scope_not_authorized}, {@code
 *     missing_user_id}, or on fallback {@code fallback_closed_timeout}, {@code
 *     fallback_closed_unreachable}, {@code fallback_closed_server_error} (and their {@code
 *     fallback_open_*} twins); and the guard's own: {@code invalid_resource_argument} (local: a
 *     resource template could not read its argument), {@code service_unavailable} (the service
 *     refused the guard's API key), {@code confirmation_declined} (the user declined in their
 *     client)
 * @param latency from the start of the guard to the decision: identity, resolver and check round
 *     trip, without the tool itself
 * @param receiptId the id of the signed receipt the service issued, or {@code null} for local and
 *     fallback decisions
 * @param local whether the guard decided without calling the service ({@code missing_user_id},
 *     {@code authorization_not_found} from the resolver, {@code invalid_resource_argument})
 * @param fallbackMode the client's fallback mode when the service could not answer, else {@code
 *     null}
 */
public record GuardDecision(
    String toolName,
    String scope,
    String userId,
    String authorizationId,
    Decision decision,
    Reason reason,
    Duration latency,
    String receiptId,
    boolean local,
    FallbackMode fallbackMode) {

  /**
   * Requires the members every decision has.
   *
   * @throws NullPointerException if {@code toolName}, {@code scope}, {@code decision}, {@code
   *     reason} or {@code latency} is null
   */
  public GuardDecision {
    Objects.requireNonNull(toolName, "toolName");
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(decision, "decision");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(latency, "latency");
  }

  /** Returns whether the tool was allowed to run. */
  public boolean allowed() {
    return Decision.ALLOW.equals(decision);
  }

  /** Returns whether the SDK's fallback policy decided because the service could not answer. */
  public boolean fallback() {
    return fallbackMode != null;
  }
}
