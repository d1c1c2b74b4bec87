package dev.agentauth.client;

import dev.agentauth.client.internal.Validation;
import dev.agentauth.model.CheckRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A validated {@code POST /v1/check} call: which authorization, which scopes, and optionally the
 * resource, session, cost estimate and context. {@link Builder#build()} rejects what the service
 * would reject anyway (no scopes, a scope twice, more than 20 scopes, a cost estimate with more
 * than one scope), before any network call.
 *
 * <pre>{@code
 * CheckResponse r = client.check(CheckParams.builder()
 *     .authorizationId(authId)
 *     .scope("email.send")
 *     .resource("mailbox:42")
 *     .initiatedBy("user")
 *     .build());
 * if (r.results().get("email.send").isAllowed()) { ... }
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class CheckParams {
  private final CheckRequest body;
  private final boolean waitForReceipt;

  private CheckParams(CheckRequest body, boolean waitForReceipt) {
    this.body = body;
    this.waitForReceipt = waitForReceipt;
  }

  /** Returns an empty builder. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns a check of {@code scopes} on {@code authorizationId}, without resource or context.
   *
   * @throws IllegalArgumentException as {@link Builder#build()}
   */
  public static CheckParams of(String authorizationId, String... scopes) {
    return builder().authorizationId(authorizationId).scopes(scopes).build();
  }

  /** Returns the request body sent to the service. */
  public CheckRequest body() {
    return body;
  }

  /** Returns the authorization checked. */
  public String authorizationId() {
    return body.authorizationId();
  }

  /** Returns the scopes checked, in request order. */
  public List<String> scopes() {
    return body.scopes();
  }

  /**
   * Returns whether the call asks the service to wait (up to 5 s) for signed receipts ({@code
   * ?wait=true}); the client's check timeout then grows by 5 s.
   */
  public boolean waitForReceipt() {
    return waitForReceipt;
  }

  @Override
  public String toString() {
    return "CheckParams{" + body + ", waitForReceipt=" + waitForReceipt + "}";
  }

  /** Builder of {@link CheckParams}. Not thread-safe. */
  public static final class Builder {
    private String authorizationId;
    private final List<String> scopes = new ArrayList<>();
    private String resource;
    private String sessionId;
    private Long estimatedCostMicros;
    private Map<String, Object> context;
    private boolean waitForReceipt;

    private Builder() {}

    /** Sets the authorization to check (required). */
    public Builder authorizationId(String authorizationId) {
      this.authorizationId = authorizationId;
      return this;
    }

    /** Adds one scope to check. */
    public Builder scope(String scope) {
      scopes.add(scope);
      return this;
    }

    /** Replaces the scopes to check. */
    public Builder scopes(String... scopes) {
      return scopes(Arrays.asList(Objects.requireNonNull(scopes, "scopes")));
    }

    /** Replaces the scopes to check. */
    public Builder scopes(List<String> scopes) {
      Objects.requireNonNull(scopes, "scopes");
      this.scopes.clear();
      this.scopes.addAll(scopes);
      return this;
    }

    /** Sets the target of the action ({@code resource}), matched by {@code resource_pattern}. */
    public Builder resource(String resource) {
      this.resource = resource;
      return this;
    }

    /** Sets the {@code session_id} recorded in the receipts. */
    public Builder sessionId(String sessionId) {
      this.sessionId = sessionId;
      return this;
    }

    /**
     * Sets the estimated cost in micro-USD, required on budgeted authorizations (then exactly one
     * scope may be checked).
     */
    public Builder estimatedCostMicros(long estimatedCostMicros) {
      this.estimatedCostMicros = estimatedCostMicros;
      return this;
    }

    /** Replaces the opaque {@code context} object. */
    public Builder context(Map<String, Object> context) {
      this.context = context == null ? null : new LinkedHashMap<>(context);
      return this;
    }

    /** Adds one member to {@code context}. */
    public Builder putContext(String key, Object value) {
      Objects.requireNonNull(key, "key");
      if (context == null) {
        context = new LinkedHashMap<>();
      }
      context.put(key, value);
      return this;
    }

    /** Sets {@code context.initiated_by}, which {@code allowed_initiators} constraints match. */
    public Builder initiatedBy(String initiatedBy) {
      return putContext("initiated_by", initiatedBy);
    }

    /** Asks the service to wait up to 5 s for signed receipts ({@code ?wait=true}). */
    public Builder waitForReceipt(boolean waitForReceipt) {
      this.waitForReceipt = waitForReceipt;
      return this;
    }

    /**
     * Returns the validated parameters; the builder can be reused.
     *
     * @throws IllegalArgumentException if the authorization id is missing or blank, there is no
     *     scope, a scope is blank or repeated, there are more than 20 scopes, or a cost estimate is
     *     negative or comes with more than one scope
     */
    public CheckParams build() {
      Validation.id(authorizationId, "authorization_id");
      List<String> names = Validation.scopeNames(scopes, "scopes");
      if (names.size() > Validation.MAX_SCOPES_PER_CHECK) {
        throw new IllegalArgumentException(
            "expected at most "
                + Validation.MAX_SCOPES_PER_CHECK
                + " scopes per check, found "
                + names.size());
      }
      if (estimatedCostMicros != null) {
        Validation.nonNegative(estimatedCostMicros, "estimated_cost_micros");
        if (names.size() != 1) {
          throw new IllegalArgumentException(
              "expected exactly one scope on a check with estimated_cost_micros, found "
                  + names.size());
        }
      }
      CheckRequest body =
          new CheckRequest(
              authorizationId, names, resource, sessionId, estimatedCostMicros, context);
      return new CheckParams(body, waitForReceipt);
    }
  }
}
