package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * The 200 body of {@code POST /v1/escalations/{id}/resolve}. All members are always written.
 *
 * @param receipt the {@code escalation.resolve} receipt on the first successful resolution;
 *     explicit {@code null} when the same resolution is repeated
 */
public record EscalationResolveResponse(
    @JsonProperty("escalation_id") String escalationId,
    @JsonProperty("status") EscalationStatus status,
    @JsonProperty("resolved_by") String resolvedBy,
    @JsonProperty("resolved_at") Instant resolvedAt,
    @JsonProperty("receipt") ReceiptRef receipt) {}
