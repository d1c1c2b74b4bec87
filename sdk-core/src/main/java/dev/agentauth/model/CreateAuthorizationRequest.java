package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Body of {@code POST /v1/authorizations}, in the inline shape ({@code agent_id} + {@code scopes})
 * or the bundle shape ({@code bundle_id}). Any JSON-shaped value is accepted here; the server
 * validates. {@code null} members mean absent and are omitted when written.
 *
 * <p>The reference server reads this record. Clients build it, validated, with {@link
 * dev.agentauth.client.AuthorizationCreateParams}, the one public way to make the request.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CreateAuthorizationRequest(
    @JsonProperty("user_id") String userId,
    @JsonProperty("agent_id") String agentId,
    @JsonProperty("bundle_id") String bundleId,
    @JsonProperty("scopes") List<ScopeEntry> scopes,
    @JsonProperty("requires_confirm_for") List<String> requiresConfirmFor,
    @JsonProperty("requires_escalation_for") List<String> requiresEscalationFor,
    @JsonProperty("escalation_targets") Map<String, String> escalationTargets,
    @JsonProperty("expires_at") Instant expiresAt,
    @JsonProperty("budget_limit_micros") Long budgetLimitMicros,
    @JsonProperty("metadata") Map<String, Object> metadata) {

  /** Copies every collection; {@code null} stays {@code null}. */
  public CreateAuthorizationRequest {
    scopes = Copies.list(scopes);
    requiresConfirmFor = Copies.list(requiresConfirmFor);
    requiresEscalationFor = Copies.list(requiresEscalationFor);
    escalationTargets = Copies.map(escalationTargets);
    metadata = Copies.json(metadata);
  }
}
