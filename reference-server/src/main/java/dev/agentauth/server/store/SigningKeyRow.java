package dev.agentauth.server.store;

import java.time.Instant;

/**
 * A workspace signing key. {@code privateSeed} is the 32-byte Ed25519 seed; durable stores keep it
 * encrypted at rest.
 */
public record SigningKeyRow(
    String workspaceId,
    String keyId,
    byte[] privateSeed,
    byte[] publicKey,
    Instant activeFrom,
    Instant activeUntil) {

  /** Whether this key may sign (or verify) a receipt issued at {@code issuedAt}. */
  public boolean validAt(Instant issuedAt) {
    return !activeFrom.isAfter(issuedAt) && (activeUntil == null || issuedAt.isBefore(activeUntil));
  }

  /** A copy retired at {@code until}. */
  public SigningKeyRow retiredAt(Instant until) {
    return new SigningKeyRow(workspaceId, keyId, privateSeed, publicKey, activeFrom, until);
  }
}
