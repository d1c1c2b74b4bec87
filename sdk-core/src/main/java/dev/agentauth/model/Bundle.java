package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * An agent scope bundle as returned by the bundle endpoints (201 on create, 200 on get, edit and
 * delete) and in {@link BundlePage}. Every member is always written, {@code null} values as
 * explicit {@code null}; {@code null} lists and maps become empty ones.
 *
 * @param defaultExpiryDays days until expiry of authorizations created without {@code expires_at},
 *     or {@code null}
 * @param deletedAt when soft-deleted ({@code status} {@code deleted}), else {@code null}
 */
public record Bundle(
    @JsonProperty("id") String id,
    @JsonProperty("agent_id") String agentId,
    @JsonProperty("scopes") List<ScopeEntry> scopes,
    @JsonProperty("requires_confirm_for") List<String> requiresConfirmFor,
    @JsonProperty("requires_escalation_for") List<String> requiresEscalationFor,
    @JsonProperty("escalation_targets") Map<String, String> escalationTargets,
    @JsonProperty("default_expiry_days") Long defaultExpiryDays,
    @JsonProperty("description") String description,
    @JsonProperty("status") BundleStatus status,
    @JsonProperty("created_at") Instant createdAt,
    @JsonProperty("updated_at") Instant updatedAt,
    @JsonProperty("deleted_at") Instant deletedAt) {

  /** Copies every collection; {@code null} becomes empty. */
  public Bundle {
    scopes = Copies.listOrEmpty(scopes);
    requiresConfirmFor = Copies.listOrEmpty(requiresConfirmFor);
    requiresEscalationFor = Copies.listOrEmpty(requiresEscalationFor);
    escalationTargets = Copies.mapOrEmpty(escalationTargets);
  }
}
