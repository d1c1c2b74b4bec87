package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Body of {@code POST /v1/check}. Any JSON-shaped value is accepted here; the server validates.
 * {@code null} members mean absent and are omitted when written.
 *
 * <pre>{@code
 * CheckRequest req = CheckRequest.builder()
 *     .authorizationId(authId).scopes("email.send").resource("mailbox:42").build();
 * }</pre>
 *
 * @param estimatedCostMicros required for budgeted authorizations (then exactly one scope)
 * @param context opaque; {@code context.initiated_by} is matched by {@code allowed_initiators}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CheckRequest(
    @JsonProperty("authorization_id") String authorizationId,
    @JsonProperty("scopes") List<String> scopes,
    @JsonProperty("resource") String resource,
    @JsonProperty("session_id") String sessionId,
    @JsonProperty("estimated_cost_micros") Long estimatedCostMicros,
    @JsonProperty("context") Map<String, Object> context) {

  /** Copies every collection; {@code null} stays {@code null}. */
  public CheckRequest {
    scopes = Copies.list(scopes);
    context = Copies.json(context);
  }

  /** Returns an empty builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builder of {@link CheckRequest}; every member starts absent. Not thread-safe. */
  public static final class Builder {
    private String authorizationId;
    private List<String> scopes;
    private String resource;
    private String sessionId;
    private Long estimatedCostMicros;
    private Map<String, Object> context;

    private Builder() {}

    /** Sets {@code authorization_id}. */
    public Builder authorizationId(String authorizationId) {
      this.authorizationId = authorizationId;
      return this;
    }

    /** Replaces {@code scopes}. */
    public Builder scopes(List<String> scopes) {
      this.scopes = scopes == null ? null : new ArrayList<>(scopes);
      return this;
    }

    /** Replaces {@code scopes}. */
    public Builder scopes(String... scopes) {
      return scopes(Arrays.asList(scopes));
    }

    /** Sets {@code resource}. */
    public Builder resource(String resource) {
      this.resource = resource;
      return this;
    }

    /** Sets {@code session_id}. */
    public Builder sessionId(String sessionId) {
      this.sessionId = sessionId;
      return this;
    }

    /** Sets {@code estimated_cost_micros}. */
    public Builder estimatedCostMicros(Long estimatedCostMicros) {
      this.estimatedCostMicros = estimatedCostMicros;
      return this;
    }

    /** Replaces {@code context}. */
    public Builder context(Map<String, Object> context) {
      this.context = context == null ? null : new LinkedHashMap<>(context);
      return this;
    }

    /** Adds one {@code context} member, keeping insertion order. */
    public Builder putContext(String key, Object value) {
      if (context == null) {
        context = new LinkedHashMap<>();
      }
      context.put(key, value);
      return this;
    }

    /** Returns the request; the builder can be reused. */
    public CheckRequest build() {
      return new CheckRequest(
          authorizationId, scopes, resource, sessionId, estimatedCostMicros, context);
    }
  }
}
