package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.List;

/**
 * An API key's record: what {@code POST /v1/api-keys} (and its admin twin) answers, one entry of
 * {@code GET /v1/api-keys}, and {@code GET /v1/api-keys/current}.
 *
 * @param keyId the key's opaque id (not the secret); listings and revocation use it
 * @param apiKey the secret, {@code sk_<base64url>}: only in the answer that created the key,
 *     otherwise null (and absent on the wire)
 * @param workspaceId the workspace the key belongs to
 * @param role what the key may call
 * @param name the key's name, or null
 * @param approverId for an {@code approver} key, the id its resolutions are recorded under
 * @param prefix the first 8 characters of the secret after {@code sk_}, to recognise a key; null
 *     for a key made before roles until it is next used
 * @param createdAt when the key was created
 * @param expiresAt when the key stops working, or null for never
 * @param lastUsedAt when the key was last used, up to a minute behind; null if never
 * @param revokedAt when the key was revoked, or null
 * @param targets for an {@code approver} key bound to {@code escalation_to} labels, those labels:
 *     it resolves only escalations to one of them; null (absent on the wire) for a key bound to
 *     none
 */
public record ApiKey(
    @JsonProperty("key_id") String keyId,
    @JsonProperty("api_key") @JsonInclude(JsonInclude.Include.NON_NULL) String apiKey,
    @JsonProperty("workspace_id") String workspaceId,
    @JsonProperty("role") ApiKeyRole role,
    @JsonProperty("name") String name,
    @JsonProperty("approver_id") String approverId,
    @JsonProperty("prefix") String prefix,
    @JsonProperty("created_at") Instant createdAt,
    @JsonProperty("expires_at") Instant expiresAt,
    @JsonProperty("last_used_at") Instant lastUsedAt,
    @JsonProperty("revoked_at") Instant revokedAt,
    @JsonProperty("targets") @JsonInclude(JsonInclude.Include.NON_NULL) List<String> targets) {

  /** The same record without the secret. */
  public ApiKey withoutSecret() {
    return new ApiKey(
        keyId,
        null,
        workspaceId,
        role,
        name,
        approverId,
        prefix,
        createdAt,
        expiresAt,
        lastUsedAt,
        revokedAt,
        targets);
  }

  /** Keeps the secret out of logs. */
  @Override
  public String toString() {
    return "ApiKey[keyId="
        + keyId
        + ", apiKey="
        + (apiKey == null ? "null" : "<redacted>")
        + ", workspaceId="
        + workspaceId
        + ", role="
        + role
        + ", name="
        + name
        + ", approverId="
        + approverId
        + ", prefix="
        + prefix
        + ", createdAt="
        + createdAt
        + ", expiresAt="
        + expiresAt
        + ", lastUsedAt="
        + lastUsedAt
        + ", revokedAt="
        + revokedAt
        + ", targets="
        + targets
        + "]";
  }
}
