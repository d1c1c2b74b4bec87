package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.Objects;

/**
 * The decision for one scope: a value of {@code results} in a {@link CheckResponse}. Every member
 * except {@code decision} and {@code reason} is present only in the situation the service spec
 * names ({@code confirm_*} for {@code confirm}, {@code escalation*} for {@code escalate}, {@code
 * budget} when evaluated) and is omitted when {@code null}. {@code fallback} and {@code
 * fallback_mode} are set only on SDK-local fallback results, which also have no {@code receipt}.
 *
 * @param receipt pending envelope by default, the signed receipt with {@code ?wait=true}, {@code
 *     null} on fallback results
 * @param escalationTo the approver label, or {@code null} when no target is configured
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CheckResult(
    @JsonProperty("decision") Decision decision,
    @JsonProperty("reason") Reason reason,
    @JsonProperty("receipt") ReceiptRef receipt,
    @JsonProperty("budget") BudgetBlock budget,
    @JsonProperty("confirm_nonce") String confirmNonce,
    @JsonProperty("confirm_expires_at") Instant confirmExpiresAt,
    @JsonProperty("confirm_prompt_hint") String confirmPromptHint,
    @JsonProperty("escalation") EscalationRef escalation,
    @JsonProperty("escalation_id") String escalationId,
    @JsonProperty("escalation_to") String escalationTo,
    @JsonProperty("escalation_expires_at") Instant escalationExpiresAt,
    @JsonProperty("fallback") Boolean fallback,
    @JsonProperty("fallback_mode") FallbackMode fallbackMode) {

  /**
   * Requires {@code decision} and {@code reason}, which every result carries.
   *
   * @throws NullPointerException if {@code decision} or {@code reason} is null
   */
  public CheckResult {
    Objects.requireNonNull(decision, "decision");
    Objects.requireNonNull(reason, "reason");
  }

  /** Returns whether the decision is {@code allow}: the only one that lets the action run. */
  @JsonIgnore
  public boolean isAllowed() {
    return Decision.ALLOW.equals(decision);
  }
}
