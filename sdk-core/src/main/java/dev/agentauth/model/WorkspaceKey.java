package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * A public signing key of a workspace: an element of {@link WorkspaceKeys}, and the 201 body of the
 * admin key rotation. A key is valid for a receipt when {@code active_from <= issued_at} and
 * ({@code active_until} is {@code null} or {@code issued_at < active_until}).
 *
 * @param alg {@code Ed25519}
 * @param publicKey unpadded base64url of the 32-byte public key
 * @param activeUntil explicit {@code null} while the key is current; set when retired
 */
public record WorkspaceKey(
    @JsonProperty("key_id") String keyId,
    @JsonProperty("alg") String alg,
    @JsonProperty("public_key") String publicKey,
    @JsonProperty("active_from") Instant activeFrom,
    @JsonProperty("active_until") Instant activeUntil) {}
