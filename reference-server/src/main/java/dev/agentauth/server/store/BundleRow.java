package dev.agentauth.server.store;

import dev.agentauth.server.domain.ScopeRule;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** An agent scope bundle; {@code deletedAt} non-null means soft-deleted. */
public record BundleRow(
    String workspaceId,
    String bundleId,
    String agentId,
    List<ScopeRule> scopes,
    List<String> requiresConfirmFor,
    List<String> requiresEscalationFor,
    Map<String, String> escalationTargets,
    Long defaultExpiryDays,
    String description,
    Instant createdAt,
    Instant updatedAt,
    Instant deletedAt) {

  public BundleRow {
    scopes = List.copyOf(scopes);
    requiresConfirmFor = List.copyOf(requiresConfirmFor);
    requiresEscalationFor = List.copyOf(requiresEscalationFor);
    escalationTargets =
        java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(escalationTargets));
  }

  public boolean isActive() {
    return deletedAt == null;
  }

  public BundleRow deleted(Instant at) {
    return new BundleRow(
        workspaceId,
        bundleId,
        agentId,
        scopes,
        requiresConfirmFor,
        requiresEscalationFor,
        escalationTargets,
        defaultExpiryDays,
        description,
        createdAt,
        at,
        at);
  }
}
