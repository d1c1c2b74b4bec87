package dev.agentauth.client;

import dev.agentauth.client.internal.Validation;
import dev.agentauth.model.CreateAuthorizationRequest;
import dev.agentauth.model.ScopeConstraints;
import dev.agentauth.model.ScopeEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A validated {@code POST /v1/authorizations} call in one of its two shapes, which cannot be mixed:
 * {@link #inline()} (agent and scopes given here) or {@link #fromBundle(String)} (agent and scopes
 * taken from a stored agent scope bundle). {@code build()} rejects, before any network call, what
 * the client can know is wrong: a missing user, agent or {@code expires_at}, no scopes or a scope
 * twice, {@code requires_*} entries that are not scopes of the authorization, and a {@code user_id}
 * that is a raw e-mail address.
 *
 * <pre>{@code
 * Authorization a = client.authorizations().create(AuthorizationCreateParams.inline()
 *     .userId(UserIds.keyedHash(secret, email))
 *     .agentId("support-bot")
 *     .scope("email.send")
 *     .scope("crm.read", ScopeConstraints.builder()
 *         .maxPerDay(100)
 *         .resourcePattern("crm:*")
 *         .build())
 *     .requiresConfirmFor("email.send")
 *     .expiresAt(Instant.now().plus(Duration.ofDays(30)))
 *     .build());
 *
 * Authorization b = client.authorizations().create(AuthorizationCreateParams
 *     .fromBundle("support-bot-default")
 *     .userId(userId)
 *     .build()); // expires_at may come from the bundle's default_expiry_days
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class AuthorizationCreateParams {
  private final CreateAuthorizationRequest body;
  private final boolean waitForReceipt;

  private AuthorizationCreateParams(CreateAuthorizationRequest body, boolean waitForReceipt) {
    this.body = body;
    this.waitForReceipt = waitForReceipt;
  }

  /** Returns a builder for the inline shape: {@code agent_id} and {@code scopes} given here. */
  public static InlineBuilder inline() {
    return new InlineBuilder();
  }

  /** Returns a builder for the bundle shape: agent and scopes come from bundle {@code bundleId}. */
  public static BundleBuilder fromBundle(String bundleId) {
    return new BundleBuilder(bundleId);
  }

  /** Returns the request body sent to the service. */
  public CreateAuthorizationRequest body() {
    return body;
  }

  /**
   * Returns whether the call asks the service to wait (up to 5 s) for the signed creation receipt
   * ({@code ?wait=true}).
   */
  public boolean waitForReceipt() {
    return waitForReceipt;
  }

  @Override
  public String toString() {
    return "AuthorizationCreateParams{" + body + ", waitForReceipt=" + waitForReceipt + "}";
  }

  /**
   * Members shared by both shapes.
   *
   * @param <B> the concrete builder
   */
  public abstract static class Builder<B extends Builder<B>> {
    String userId;
    List<String> requiresConfirmFor;
    List<String> requiresEscalationFor;
    Map<String, String> escalationTargets;
    Instant expiresAt;
    Long budgetLimitMicros;
    Map<String, Object> metadata;
    boolean waitForReceipt;

    Builder() {}

    abstract B self();

    /**
     * Sets the end-user ({@code user_id}, required): an opaque id, never a raw e-mail, phone number
     * or name. See {@link UserIds#keyedHash(byte[], String)}.
     */
    public B userId(String userId) {
      this.userId = userId;
      return self();
    }

    /** Sets the scopes that return {@code confirm} before allowing. */
    public B requiresConfirmFor(String... scopes) {
      this.requiresConfirmFor = new ArrayList<>(Arrays.asList(scopes));
      return self();
    }

    /** Sets the scopes that return {@code escalate} before allowing (Pro+ plans). */
    public B requiresEscalationFor(String... scopes) {
      this.requiresEscalationFor = new ArrayList<>(Arrays.asList(scopes));
      return self();
    }

    /**
     * Names the approver label ({@code manager}, {@code security}, ...) for a scope's escalations.
     */
    public B escalationTarget(String scope, String approver) {
      Objects.requireNonNull(scope, "scope");
      Objects.requireNonNull(approver, "approver");
      if (escalationTargets == null) {
        escalationTargets = new LinkedHashMap<>();
      }
      escalationTargets.put(scope, approver);
      return self();
    }

    /** Sets when the authorization expires ({@code expires_at}). */
    public B expiresAt(Instant expiresAt) {
      this.expiresAt = expiresAt;
      return self();
    }

    /** Sets the spend cap in micro-USD (Pro+ plans); checks must then carry a cost estimate. */
    public B budgetLimitMicros(long budgetLimitMicros) {
      this.budgetLimitMicros = budgetLimitMicros;
      return self();
    }

    /** Replaces the opaque {@code metadata} recorded in the creation receipt. */
    public B metadata(Map<String, Object> metadata) {
      this.metadata = metadata == null ? null : new LinkedHashMap<>(metadata);
      return self();
    }

    /** Adds one {@code metadata} member. */
    public B putMetadata(String key, Object value) {
      Objects.requireNonNull(key, "key");
      if (metadata == null) {
        metadata = new LinkedHashMap<>();
      }
      metadata.put(key, value);
      return self();
    }

    /** Asks the service to wait up to 5 s for the signed creation receipt ({@code ?wait=true}). */
    public B waitForReceipt(boolean waitForReceipt) {
      this.waitForReceipt = waitForReceipt;
      return self();
    }

    void validateCommon() {
      Validation.opaqueId(userId, "user_id");
      if (budgetLimitMicros != null) {
        Validation.nonNegative(budgetLimitMicros, "budget_limit_micros");
      }
    }

    /**
     * Returns the validated parameters; the builder can be reused.
     *
     * @throws IllegalArgumentException if a required member is missing or the members contradict
     *     each other (see the class documentation)
     */
    public abstract AuthorizationCreateParams build();
  }

  /** Builder of the inline shape. Not thread-safe. */
  public static final class InlineBuilder extends Builder<InlineBuilder> {
    private String agentId;
    private final List<ScopeEntry> scopes = new ArrayList<>();

    private InlineBuilder() {}

    @Override
    InlineBuilder self() {
      return this;
    }

    /** Sets the agent ({@code agent_id}, required): an opaque id. */
    public InlineBuilder agentId(String agentId) {
      this.agentId = agentId;
      return this;
    }

    /** Adds a scope without constraints. */
    public InlineBuilder scope(String name) {
      scopes.add(ScopeEntry.of(name));
      return this;
    }

    /**
     * Adds a scope with constraints: {@code scope("crm.read",
     * ScopeConstraints.builder().maxPerDay(100).build())}.
     */
    public InlineBuilder scope(String name, ScopeConstraints constraints) {
      scopes.add(ScopeEntry.of(name, Objects.requireNonNull(constraints, "constraints")));
      return this;
    }

    /** Adds a scope entry (with optional constraints). */
    public InlineBuilder scope(ScopeEntry entry) {
      scopes.add(Objects.requireNonNull(entry, "entry"));
      return this;
    }

    /** Replaces the scope entries. */
    public InlineBuilder scopes(List<ScopeEntry> entries) {
      Objects.requireNonNull(entries, "entries");
      scopes.clear();
      scopes.addAll(entries);
      return this;
    }

    @Override
    public AuthorizationCreateParams build() {
      validateCommon();
      Validation.opaqueId(agentId, "agent_id");
      List<ScopeEntry> entries = Validation.scopeEntries(scopes, "scopes");
      Set<String> names = Validation.names(entries);
      Validation.subsetOf(requiresConfirmFor, names, "requires_confirm_for");
      Validation.subsetOf(requiresEscalationFor, names, "requires_escalation_for");
      if (escalationTargets != null) {
        Validation.subsetOf(
            new ArrayList<>(escalationTargets.keySet()), names, "escalation_targets");
      }
      if (expiresAt == null) {
        throw new IllegalArgumentException(
            "expected expires_at: authorizations are never perpetual, found none");
      }
      CreateAuthorizationRequest body =
          new CreateAuthorizationRequest(
              userId,
              agentId,
              null,
              entries,
              requiresConfirmFor,
              requiresEscalationFor,
              escalationTargets,
              expiresAt,
              budgetLimitMicros,
              metadata);
      return new AuthorizationCreateParams(body, waitForReceipt);
    }
  }

  /**
   * Builder of the bundle shape. {@code expires_at} may be left out when the bundle has {@code
   * default_expiry_days}; {@code requires_*} and {@code escalation_targets}, when given, replace
   * the bundle's (the service checks they name scopes of the bundle). Not thread-safe.
   */
  public static final class BundleBuilder extends Builder<BundleBuilder> {
    private final String bundleId;

    private BundleBuilder(String bundleId) {
      this.bundleId = bundleId;
    }

    @Override
    BundleBuilder self() {
      return this;
    }

    @Override
    public AuthorizationCreateParams build() {
      Validation.id(bundleId, "bundle_id");
      validateCommon();
      Validation.distinct(requiresConfirmFor, "requires_confirm_for");
      Validation.distinct(requiresEscalationFor, "requires_escalation_for");
      CreateAuthorizationRequest body =
          new CreateAuthorizationRequest(
              userId,
              null,
              bundleId,
              null,
              requiresConfirmFor,
              requiresEscalationFor,
              escalationTargets,
              expiresAt,
              budgetLimitMicros,
              metadata);
      return new AuthorizationCreateParams(body, waitForReceipt);
    }
  }
}
