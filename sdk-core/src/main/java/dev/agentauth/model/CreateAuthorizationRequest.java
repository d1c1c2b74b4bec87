package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Body of {@code POST /v1/authorizations}, in the inline shape ({@code agent_id} + {@code scopes})
 * or the bundle shape ({@code bundle_id}). Any JSON-shaped value is accepted here; the server
 * validates. {@code null} members mean absent and are omitted when written.
 *
 * <pre>{@code
 * CreateAuthorizationRequest req = CreateAuthorizationRequest.builder()
 *     .userId("usr_1").agentId("agent_1")
 *     .addScope("email.send")
 *     .expiresAt(Instant.parse("2026-12-01T00:00:00Z"))
 *     .build();
 * }</pre>
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

  /** Returns an empty builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builder of {@link CreateAuthorizationRequest}; every member starts absent. Not thread-safe. */
  public static final class Builder {
    private String userId;
    private String agentId;
    private String bundleId;
    private List<ScopeEntry> scopes;
    private List<String> requiresConfirmFor;
    private List<String> requiresEscalationFor;
    private Map<String, String> escalationTargets;
    private Instant expiresAt;
    private Long budgetLimitMicros;
    private Map<String, Object> metadata;

    private Builder() {}

    /** Sets {@code user_id}. */
    public Builder userId(String userId) {
      this.userId = userId;
      return this;
    }

    /** Sets {@code agent_id} (inline shape). */
    public Builder agentId(String agentId) {
      this.agentId = agentId;
      return this;
    }

    /** Sets {@code bundle_id} (bundle shape). */
    public Builder bundleId(String bundleId) {
      this.bundleId = bundleId;
      return this;
    }

    /** Replaces {@code scopes}. */
    public Builder scopes(List<ScopeEntry> scopes) {
      this.scopes = scopes == null ? null : new ArrayList<>(scopes);
      return this;
    }

    /** Appends a scope entry. */
    public Builder addScope(ScopeEntry scope) {
      if (scopes == null) {
        scopes = new ArrayList<>();
      }
      scopes.add(scope);
      return this;
    }

    /** Appends a scope entry without constraints. */
    public Builder addScope(String name) {
      return addScope(ScopeEntry.of(name));
    }

    /** Sets {@code requires_confirm_for}. */
    public Builder requiresConfirmFor(List<String> scopeNames) {
      this.requiresConfirmFor = scopeNames;
      return this;
    }

    /** Sets {@code requires_escalation_for} (Pro+). */
    public Builder requiresEscalationFor(List<String> scopeNames) {
      this.requiresEscalationFor = scopeNames;
      return this;
    }

    /** Sets {@code escalation_targets} (scope name to approver label). */
    public Builder escalationTargets(Map<String, String> escalationTargets) {
      this.escalationTargets = escalationTargets;
      return this;
    }

    /** Sets {@code expires_at}. */
    public Builder expiresAt(Instant expiresAt) {
      this.expiresAt = expiresAt;
      return this;
    }

    /** Sets {@code budget_limit_micros} (Pro+). */
    public Builder budgetLimitMicros(Long budgetLimitMicros) {
      this.budgetLimitMicros = budgetLimitMicros;
      return this;
    }

    /** Replaces {@code metadata}. */
    public Builder metadata(Map<String, Object> metadata) {
      this.metadata = metadata == null ? null : new LinkedHashMap<>(metadata);
      return this;
    }

    /** Adds one {@code metadata} member, keeping insertion order. */
    public Builder putMetadata(String key, Object value) {
      if (metadata == null) {
        metadata = new LinkedHashMap<>();
      }
      metadata.put(key, value);
      return this;
    }

    /** Returns the request; the builder can be reused. */
    public CreateAuthorizationRequest build() {
      return new CreateAuthorizationRequest(
          userId,
          agentId,
          bundleId,
          scopes,
          requiresConfirmFor,
          requiresEscalationFor,
          escalationTargets,
          expiresAt,
          budgetLimitMicros,
          metadata);
    }
  }
}
