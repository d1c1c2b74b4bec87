package dev.agentauth.server.domain;

import java.time.Instant;

/**
 * A confirmation nonce issued by a {@code confirm} result. {@code consumedAt} is set when the user
 * approves or declines; {@code approved} records which.
 */
public record NonceRow(
    String workspaceId,
    String nonce,
    String authorizationId,
    String scope,
    String resource,
    Instant createdAt,
    Instant expiresAt,
    Instant consumedAt,
    Boolean approved) {

  /** Unconsumed and not yet expired at {@code now}. */
  public boolean isOpen(Instant now) {
    return consumedAt == null && now.isBefore(expiresAt);
  }

  public NonceRow consumed(Instant at, boolean approvedByUser) {
    return new NonceRow(
        workspaceId,
        nonce,
        authorizationId,
        scope,
        resource,
        createdAt,
        expiresAt,
        at,
        approvedByUser);
  }
}
