package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * An escalation as returned by {@code GET /v1/escalations/{id}} and in {@link EscalationPage}.
 * Every member is always written, {@code null} values as explicit {@code null}.
 *
 * @param approvalExpiresAt end of the window in which an approval can be consumed, or {@code null}
 * @param approvalConsumedAt when a re-check consumed the approval, or {@code null}
 */
public record Escalation(
    @JsonProperty("escalation_id") String escalationId,
    @JsonProperty("authorization_id") String authorizationId,
    @JsonProperty("scope") String scope,
    @JsonProperty("resource") String resource,
    @JsonProperty("status") EscalationStatus status,
    @JsonProperty("escalation_to") String escalationTo,
    @JsonProperty("created_at") Instant createdAt,
    @JsonProperty("expires_at") Instant expiresAt,
    @JsonProperty("resolved_by") String resolvedBy,
    @JsonProperty("resolved_at") Instant resolvedAt,
    @JsonProperty("note") String note,
    @JsonProperty("approval_expires_at") Instant approvalExpiresAt,
    @JsonProperty("approval_consumed_at") Instant approvalConsumedAt) {}
