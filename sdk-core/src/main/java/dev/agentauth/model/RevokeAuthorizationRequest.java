package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Optional body of {@code DELETE /v1/authorizations/{id}}; both members go into the revocation
 * receipt's context. {@code null} members are omitted when written.
 *
 * @param revokedBy opaque actor identifier (server default {@code api_key})
 * @param notes free text
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RevokeAuthorizationRequest(
    @JsonProperty("revoked_by") String revokedBy, @JsonProperty("notes") String notes) {}
