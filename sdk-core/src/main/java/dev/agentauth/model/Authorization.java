package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * An authorization: the 201 body of {@code POST /v1/authorizations} (with {@code receipt}), the
 * body of {@code GET /v1/authorizations/{id}} (without) and an element of {@link
 * AuthorizationPage}. Every member is always written, {@code null} values as explicit {@code null}
 * ({@code bundle_id}, {@code budget_limit_micros}, {@code revoked_at}), except {@code receipt},
 * which is omitted when {@code null}. {@code null} lists and maps become empty ones.
 *
 * @param bundleId the bundle used, or {@code null} for the inline shape
 * @param budgetLimitMicros spend cap in micro-USD, or {@code null} for none
 * @param budgetSpentMicros spent so far in micro-USD ({@code 0} at creation)
 * @param revokedAt when revoked, or {@code null}
 * @param receipt the {@code authorization.create} receipt (pending envelope, or signed with {@code
 *     ?wait=true}) on creation; {@code null} otherwise
 */
public record Authorization(
    @JsonProperty("authorization_id") String authorizationId,
    @JsonProperty("user_id") String userId,
    @JsonProperty("agent_id") String agentId,
    @JsonProperty("bundle_id") String bundleId,
    @JsonProperty("scopes") List<ScopeEntry> scopes,
    @JsonProperty("requires_confirm_for") List<String> requiresConfirmFor,
    @JsonProperty("requires_escalation_for") List<String> requiresEscalationFor,
    @JsonProperty("escalation_targets") Map<String, String> escalationTargets,
    @JsonProperty("expires_at") Instant expiresAt,
    @JsonProperty("budget_limit_micros") Long budgetLimitMicros,
    @JsonProperty("budget_spent_micros") long budgetSpentMicros,
    @JsonProperty("created_at") Instant createdAt,
    @JsonProperty("revoked_at") Instant revokedAt,
    @JsonProperty("metadata") Map<String, Object> metadata,
    @JsonProperty("status") AuthorizationStatus status,
    @JsonProperty("receipt") @JsonInclude(JsonInclude.Include.NON_NULL) ReceiptRef receipt) {

  /** Copies every collection; {@code null} becomes empty. */
  public Authorization {
    scopes = Copies.listOrEmpty(scopes);
    requiresConfirmFor = Copies.listOrEmpty(requiresConfirmFor);
    requiresEscalationFor = Copies.listOrEmpty(requiresEscalationFor);
    escalationTargets = Copies.mapOrEmpty(escalationTargets);
    metadata = Copies.jsonOrEmpty(metadata);
  }

  /** Returns a copy with {@code receipt} replaced (e.g. {@code null} for a {@code GET} body). */
  public Authorization withReceipt(ReceiptRef receipt) {
    return new Authorization(
        authorizationId,
        userId,
        agentId,
        bundleId,
        scopes,
        requiresConfirmFor,
        requiresEscalationFor,
        escalationTargets,
        expiresAt,
        budgetLimitMicros,
        budgetSpentMicros,
        createdAt,
        revokedAt,
        metadata,
        status,
        receipt);
  }
}
