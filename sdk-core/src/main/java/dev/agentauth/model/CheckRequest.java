package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * Body of {@code POST /v1/check}. Any JSON-shaped value is accepted here; the server validates.
 * {@code null} members mean absent and are omitted when written.
 *
 * <p>The reference server reads this record. Clients build it, validated, with {@link
 * dev.agentauth.client.CheckParams}, the one public way to make the request.
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
}
