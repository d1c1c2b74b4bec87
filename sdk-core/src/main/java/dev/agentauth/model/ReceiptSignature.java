package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The {@code signature} member of a {@link SignedReceipt}.
 *
 * @param alg {@code Ed25519}
 * @param keyId names the workspace key (see {@link WorkspaceKey})
 * @param value unpadded base64url of the 64 signature bytes
 */
public record ReceiptSignature(
    @JsonProperty("alg") String alg,
    @JsonProperty("key_id") String keyId,
    @JsonProperty("value") String value) {}
