package dev.agentauth.server.domain;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.model.AuthorizationStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * An authorization as stored. Immutable apart from {@code budgetSpentMicros} and {@code revokedAt}.
 */
public record AuthorizationRow(
    String workspaceId,
    String authorizationId,
    String userId,
    String agentId,
    String bundleId,
    List<ScopeRule> scopes,
    List<String> requiresConfirmFor,
    List<String> requiresEscalationFor,
    Map<String, String> escalationTargets,
    Instant expiresAt,
    Long budgetLimitMicros,
    long budgetSpentMicros,
    Instant createdAt,
    Instant revokedAt,
    ObjectNode metadata) {

  public AuthorizationRow {
    scopes = List.copyOf(scopes);
    requiresConfirmFor = List.copyOf(requiresConfirmFor);
    requiresEscalationFor = List.copyOf(requiresEscalationFor);
    escalationTargets =
        java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(escalationTargets));
  }

  /** {@code active}, {@code revoked} or {@code expired} at {@code now}. */
  public AuthorizationStatus.Known status(Instant now) {
    if (revokedAt != null) {
      return AuthorizationStatus.Known.REVOKED;
    }
    return now.isBefore(expiresAt)
        ? AuthorizationStatus.Known.ACTIVE
        : AuthorizationStatus.Known.EXPIRED;
  }

  public AuthorizationRow withBudgetSpent(long spent) {
    return new AuthorizationRow(
        workspaceId,
        authorizationId,
        userId,
        agentId,
        bundleId,
        scopes,
        requiresConfirmFor,
        requiresEscalationFor,
        escalationTargets,
        expiresAt,
        budgetLimitMicros,
        spent,
        createdAt,
        revokedAt,
        metadata);
  }

  public AuthorizationRow withRevokedAt(Instant at) {
    return new AuthorizationRow(
        workspaceId,
        authorizationId,
        userId,
        agentId,
        bundleId,
        scopes,
        requiresConfirmFor,
        requiresEscalationFor,
        escalationTargets,
        expiresAt,
        budgetLimitMicros,
        budgetSpentMicros,
        createdAt,
        at,
        metadata);
  }
}
