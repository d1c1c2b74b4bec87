package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * The 200 body of {@code POST /v1/confirmations/{nonce}}. When declined only {@code decision}
 * ({@code denied_by_user}) is written; {@code authorization_id} and {@code expires_at} are omitted
 * when {@code null}.
 *
 * @param authorizationId the short-lived confirmation authorization (approved only)
 * @param expiresAt end of the approval window (approved only)
 */
public record ConfirmationResolution(
    @JsonProperty("decision") ConfirmationDecision decision,
    @JsonProperty("authorization_id") @JsonInclude(JsonInclude.Include.NON_NULL)
        String authorizationId,
    @JsonProperty("expires_at") @JsonInclude(JsonInclude.Include.NON_NULL) Instant expiresAt) {}
