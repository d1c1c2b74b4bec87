package dev.agentauth.server.service;

import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.model.Plan;
import java.util.List;
import java.util.Optional;

/**
 * The authenticated caller of a request: its workspace, that workspace's plan, and its key.
 *
 * @param apiKeyHash SHA-256 hex of the key's secret (idempotency records and rate limits are per
 *     key)
 * @param keyId the key's public id
 * @param role the key's role as stored; one this server does not know may call nothing
 * @param approverId for an {@code approver} key, the id it resolves escalations under
 * @param targets for an {@code approver} key bound to {@code escalation_to} labels, those labels;
 *     null when the key may resolve every escalation of the workspace
 */
public record Caller(
    String workspaceId,
    Plan.Known plan,
    String apiKeyHash,
    String keyId,
    ApiKeyRole role,
    String approverId,
    List<String> targets) {

  /** Whether this key may resolve an escalation to {@code escalationTo} (null: no target). */
  public boolean mayResolveEscalationTo(String escalationTo) {
    return targets == null || (escalationTo != null && targets.contains(escalationTo));
  }

  /** Whether the workspace's plan includes the Pro+ features. */
  public boolean isPro() {
    return plan == Plan.Known.PRO;
  }

  /** The key's role, if this server knows it. */
  public Optional<ApiKeyRole.Known> knownRole() {
    return role.known();
  }
}
