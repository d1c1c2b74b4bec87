package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.Map;

/**
 * The 200 body of {@code POST /v1/check}: one {@link CheckResult} per requested scope, keyed by
 * scope name in request order. Top-level members are always written; {@code user_id}, {@code
 * agent_id} and {@code authorization_expires_at} are explicit {@code null} when the authorization
 * was not found. SDK fallback responses carry {@code policy_version} {@code sdk_fallback}.
 *
 * @param results scope name to result, in insertion order; {@code null} becomes empty
 */
public record CheckResponse(
    @JsonProperty("authorization_id") String authorizationId,
    @JsonProperty("user_id") String userId,
    @JsonProperty("agent_id") String agentId,
    @JsonProperty("authorization_expires_at") Instant authorizationExpiresAt,
    @JsonProperty("policy_version") String policyVersion,
    @JsonProperty("results") Map<String, CheckResult> results) {

  /** Copies {@code results} keeping its order. */
  public CheckResponse {
    results = Copies.mapOrEmpty(results);
  }
}
