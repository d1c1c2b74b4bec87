package dev.agentauth.server.domain;

import java.time.Instant;
import java.util.Objects;

/**
 * A confirmation authorization: the window opened by an approved confirmation during which
 * re-checks of the same authorization, scope and resource are allowed.
 *
 * @param createdAt when the confirmation was approved (the receipts' {@code confirmed_at})
 * @param approvedBy who approved it and through what; null only for windows opened before the
 *     server recorded it (PostgreSQL migration V10, SQLite V11)
 */
public record GrantRow(
    String workspaceId,
    String grantId,
    String authorizationId,
    String scope,
    String resource,
    String nonce,
    Instant createdAt,
    Instant expiresAt,
    ApprovedBy approvedBy) {

  public boolean isActive(Instant now) {
    return now.isBefore(expiresAt);
  }

  /**
   * The provenance of an approval (decisions.md §19), recorded in the receipt of every allow the
   * window gives.
   *
   * @param keyId the id of the API key that approved
   * @param role that key's role when it approved, as its wire name
   * @param via where the user's answer came from: {@code api}, {@code mcp_elicitation} or {@code
   *     console}
   */
  public record ApprovedBy(String keyId, String role, String via) {
    public ApprovedBy {
      Objects.requireNonNull(keyId, "keyId");
      Objects.requireNonNull(role, "role");
      Objects.requireNonNull(via, "via");
    }
  }
}
