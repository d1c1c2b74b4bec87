package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * The 200 body of {@code DELETE /v1/authorizations/{id}}.
 *
 * @param receipt the {@code authorization.revoke} receipt (pending envelope, or signed with {@code
 *     ?wait=true})
 */
public record RevokeAuthorizationResponse(
    @JsonProperty("authorization_id") String authorizationId,
    @JsonProperty("revoked_at") Instant revokedAt,
    @JsonProperty("receipt") ReceiptRef receipt) {}
