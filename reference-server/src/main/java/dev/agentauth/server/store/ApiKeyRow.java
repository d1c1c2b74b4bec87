package dev.agentauth.server.store;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * An API key, stored only as the SHA-256 hash (hex) of its secret.
 *
 * @param keyHash SHA-256 hex of the secret: how a request's key is found
 * @param keyId the key's opaque public id, unique across workspaces
 * @param role the key's role as stored ({@code full} for keys made before roles)
 * @param name the key's name, or null
 * @param approverId the id an approver key resolves under, or null
 * @param prefix the first 8 characters of the secret after {@code sk_}, or null until known (keys
 *     made before roles)
 * @param expiresAt when the key stops working, or null
 * @param lastUsedAt when the key was last used (written at most once a minute), or null
 * @param revokedAt when the key was revoked, or null
 * @param targets for an approver key bound to {@code escalation_to} labels, those labels (it
 *     resolves only escalations to one of them); null for a key bound to none
 */
public record ApiKeyRow(
    String keyHash,
    String keyId,
    String workspaceId,
    String role,
    String name,
    String approverId,
    String prefix,
    Instant createdAt,
    Instant expiresAt,
    Instant lastUsedAt,
    Instant revokedAt,
    List<String> targets) {

  public ApiKeyRow {
    Objects.requireNonNull(keyHash, "keyHash");
    Objects.requireNonNull(keyId, "keyId");
    Objects.requireNonNull(workspaceId, "workspaceId");
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(createdAt, "createdAt");
    targets = targets == null ? null : List.copyOf(targets);
  }

  /** A {@code full} key with no name, expiry or history: what start-up's bootstrap key is. */
  public static ApiKeyRow full(
      String keyHash, String keyId, String workspaceId, String prefix, Instant createdAt) {
    return new ApiKeyRow(
        keyHash, keyId, workspaceId, "full", null, null, prefix, createdAt, null, null, null, null);
  }

  /** This row revoked at {@code at}. */
  public ApiKeyRow revokedAt(Instant at) {
    return new ApiKeyRow(
        keyHash,
        keyId,
        workspaceId,
        role,
        name,
        approverId,
        prefix,
        createdAt,
        expiresAt,
        lastUsedAt,
        at,
        targets);
  }

  /** This row with {@code lastUsedAt} set and the prefix filled in if it was unknown. */
  public ApiKeyRow usedAt(Instant at, String knownPrefix) {
    return new ApiKeyRow(
        keyHash,
        keyId,
        workspaceId,
        role,
        name,
        approverId,
        prefix == null ? knownPrefix : prefix,
        createdAt,
        expiresAt,
        at,
        revokedAt,
        targets);
  }

  /** A use of a key to record: when, and the prefix of its secret (for keys made before roles). */
  public record Use(String keyHash, Instant at, String prefix) {}

  /**
   * An entry of the store-wide revocation log: the key whose secret hashes to {@code keyHash} was
   * revoked, and {@code seq} orders the entry after every revocation committed before it.
   */
  public record Revocation(long seq, String keyHash) {}
}
