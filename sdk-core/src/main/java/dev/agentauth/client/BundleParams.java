package dev.agentauth.client;

import dev.agentauth.client.internal.Validation;
import dev.agentauth.model.BundleRequest;
import dev.agentauth.model.ScopeConstraints;
import dev.agentauth.model.ScopeEntry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A validated agent scope bundle for {@code POST /v1/agent-scope-bundles} (create: {@code id}
 * required) and {@code PUT /v1/agent-scope-bundles/{id}} (edit: {@code id} may be left out and
 * otherwise must equal the path's; every other member is replaced). {@link Builder#build()} rejects
 * a missing agent, no scopes or a scope twice, and {@code requires_*} entries that are not scopes
 * of the bundle.
 *
 * <pre>{@code
 * client.bundles().create(BundleParams.builder()
 *     .id("support-bot-default")
 *     .agentId("support-bot")
 *     .scope("email.send")
 *     .scope("crm.read")
 *     .requiresConfirmFor("email.send")
 *     .defaultExpiryDays(30)
 *     .description("What the support bot may do for a customer")
 *     .build());
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class BundleParams {
  private final BundleRequest body;

  private BundleParams(BundleRequest body) {
    this.body = body;
  }

  /** Returns an empty builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns the request body sent to the service. */
  public BundleRequest body() {
    return body;
  }

  /** Returns the bundle id, or {@code null} when left out (edit only). */
  public String id() {
    return body.id();
  }

  @Override
  public String toString() {
    return "BundleParams{" + body + "}";
  }

  /** Builder of {@link BundleParams}. Not thread-safe. */
  public static final class Builder {
    private String id;
    private String agentId;
    private final List<ScopeEntry> scopes = new ArrayList<>();
    private List<String> requiresConfirmFor;
    private List<String> requiresEscalationFor;
    private Map<String, String> escalationTargets;
    private Long defaultExpiryDays;
    private String description;

    private Builder() {}

    /** Sets the bundle id chosen by you; used as {@code bundle_id} in authorizations. */
    public Builder id(String id) {
      this.id = id;
      return this;
    }

    /** Sets the agent the bundle belongs to (required). */
    public Builder agentId(String agentId) {
      this.agentId = agentId;
      return this;
    }

    /** Adds a scope without constraints. */
    public Builder scope(String name) {
      scopes.add(ScopeEntry.of(name));
      return this;
    }

    /**
     * Adds a scope with constraints: {@code scope("crm.read",
     * ScopeConstraints.builder().maxPerDay(100).build())}.
     */
    public Builder scope(String name, ScopeConstraints constraints) {
      scopes.add(ScopeEntry.of(name, Objects.requireNonNull(constraints, "constraints")));
      return this;
    }

    /** Adds a scope entry (with optional constraints). */
    public Builder scope(ScopeEntry entry) {
      scopes.add(Objects.requireNonNull(entry, "entry"));
      return this;
    }

    /** Replaces the scope entries. */
    public Builder scopes(List<ScopeEntry> entries) {
      Objects.requireNonNull(entries, "entries");
      scopes.clear();
      scopes.addAll(entries);
      return this;
    }

    /** Sets the scopes that return {@code confirm} before allowing. */
    public Builder requiresConfirmFor(String... scopes) {
      this.requiresConfirmFor = new ArrayList<>(Arrays.asList(scopes));
      return this;
    }

    /** Sets the scopes that return {@code escalate} before allowing (Pro+ plans). */
    public Builder requiresEscalationFor(String... scopes) {
      this.requiresEscalationFor = new ArrayList<>(Arrays.asList(scopes));
      return this;
    }

    /** Names the approver label for a scope's escalations. */
    public Builder escalationTarget(String scope, String approver) {
      Objects.requireNonNull(scope, "scope");
      Objects.requireNonNull(approver, "approver");
      if (escalationTargets == null) {
        escalationTargets = new LinkedHashMap<>();
      }
      escalationTargets.put(scope, approver);
      return this;
    }

    /** Sets the expiry, in days after creation, of authorizations created without one. */
    public Builder defaultExpiryDays(long days) {
      this.defaultExpiryDays = days;
      return this;
    }

    /** Sets a free-text description. */
    public Builder description(String description) {
      this.description = description;
      return this;
    }

    /**
     * Returns the validated bundle; the builder can be reused.
     *
     * @throws IllegalArgumentException if the id is blank, the agent is missing, there is no scope
     *     or one twice, a {@code requires_*} entry or escalation target is not a scope of the
     *     bundle, or {@code default_expiry_days} is negative
     */
    public BundleParams build() {
      if (id != null) {
        Validation.id(id, "id");
      }
      Validation.opaqueId(agentId, "agent_id");
      List<ScopeEntry> entries = Validation.scopeEntries(scopes, "scopes");
      Set<String> names = Validation.names(entries);
      Validation.subsetOf(requiresConfirmFor, names, "requires_confirm_for");
      Validation.subsetOf(requiresEscalationFor, names, "requires_escalation_for");
      if (escalationTargets != null) {
        Validation.subsetOf(
            new ArrayList<>(escalationTargets.keySet()), names, "escalation_targets");
      }
      if (defaultExpiryDays != null) {
        Validation.nonNegative(defaultExpiryDays, "default_expiry_days");
      }
      return new BundleParams(
          new BundleRequest(
              id,
              agentId,
              entries,
              requiresConfirmFor,
              requiresEscalationFor,
              escalationTargets,
              defaultExpiryDays,
              description));
    }
  }
}
