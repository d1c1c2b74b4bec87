package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Body of {@code POST /v1/agent-scope-bundles} and {@code PUT /v1/agent-scope-bundles/{id}} (where
 * {@code id} may be omitted). Any JSON-shaped value is accepted here; the server validates. {@code
 * null} members mean absent and are omitted when written.
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

  /** Returns an empty builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builder of {@link BundleRequest}; every member starts absent. Not thread-safe. */
  public static final class Builder {
    private String id;
    private String agentId;
    private List<ScopeEntry> scopes;
    private List<String> requiresConfirmFor;
    private List<String> requiresEscalationFor;
    private Map<String, String> escalationTargets;
    private Long defaultExpiryDays;
    private String description;

    private Builder() {}

    /** Sets {@code id}. */
    public Builder id(String id) {
      this.id = id;
      return this;
    }

    /** Sets {@code agent_id}. */
    public Builder agentId(String agentId) {
      this.agentId = agentId;
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

    /** Sets {@code requires_escalation_for}. */
    public Builder requiresEscalationFor(List<String> scopeNames) {
      this.requiresEscalationFor = scopeNames;
      return this;
    }

    /** Sets {@code escalation_targets}. */
    public Builder escalationTargets(Map<String, String> escalationTargets) {
      this.escalationTargets = escalationTargets;
      return this;
    }

    /** Sets {@code default_expiry_days}. */
    public Builder defaultExpiryDays(Long defaultExpiryDays) {
      this.defaultExpiryDays = defaultExpiryDays;
      return this;
    }

    /** Sets {@code description}. */
    public Builder description(String description) {
      this.description = description;
      return this;
    }

    /** Returns the request; the builder can be reused. */
    public BundleRequest build() {
      return new BundleRequest(
          id,
          agentId,
          scopes,
          requiresConfirmFor,
          requiresEscalationFor,
          escalationTargets,
          defaultExpiryDays,
          description);
    }
  }
}
