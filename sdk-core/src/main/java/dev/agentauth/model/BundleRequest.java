package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * Body of {@code POST /v1/agent-scope-bundles} and {@code PUT /v1/agent-scope-bundles/{id}} (where
 * {@code id} may be omitted). Any JSON-shaped value is accepted here; the server validates. {@code
 * null} members mean absent and are omitted when written.
 *
 * <p>The reference server reads this record. Clients build it, validated, with {@link
 * dev.agentauth.client.BundleParams}, the one public way to make the request.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BundleRequest(
    @JsonProperty("id") String id,
    @JsonProperty("agent_id") String agentId,
    @JsonProperty("scopes") List<ScopeEntry> scopes,
    @JsonProperty("requires_confirm_for") List<String> requiresConfirmFor,
    @JsonProperty("requires_escalation_for") List<String> requiresEscalationFor,
    @JsonProperty("escalation_targets") Map<String, String> escalationTargets,
    @JsonProperty("default_expiry_days") Long defaultExpiryDays,
    @JsonProperty("description") String description) {

  /** Copies every collection; {@code null} stays {@code null}. */
  public BundleRequest {
    scopes = Copies.list(scopes);
    requiresConfirmFor = Copies.list(requiresConfirmFor);
    requiresEscalationFor = Copies.list(requiresEscalationFor);
    escalationTargets = Copies.map(escalationTargets);
  }
}
