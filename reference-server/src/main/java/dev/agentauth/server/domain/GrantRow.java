package dev.agentauth.server.domain;

import java.time.Instant;

/**
 * A confirmation authorization: the window opened by an approved confirmation during which
 * re-checks of the same authorization, scope and resource are allowed.
 */
public record GrantRow(
    String workspaceId,
    String grantId,
    String authorizationId,
    String scope,
    String resource,
    String nonce,
    Instant createdAt,
    Instant expiresAt) {

  public boolean isActive(Instant now) {
    return now.isBefore(expiresAt);
  }
}
