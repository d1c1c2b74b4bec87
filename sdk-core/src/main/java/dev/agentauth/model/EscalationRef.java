package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * The {@code escalation} object of an {@code escalate} {@link CheckResult}. All members are always
 * written; {@code escalation_to} is explicit {@code null} when no target is configured.
 *
 * @param status {@code pending} when returned by a check
 */
public record EscalationRef(
    @JsonProperty("escalation_id") String escalationId,
    @JsonProperty("status") EscalationStatus status,
    @JsonProperty("escalation_to") String escalationTo,
    @JsonProperty("expires_at") Instant expiresAt) {}
