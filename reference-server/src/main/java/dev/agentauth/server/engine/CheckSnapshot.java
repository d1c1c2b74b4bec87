package dev.agentauth.server.engine;

import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.domain.EscalationRow;
import dev.agentauth.server.domain.GrantRow;
import dev.agentauth.server.domain.NonceRow;
import java.util.List;
import java.util.Map;

/**
 * Everything the engine needs to decide one check, read (and locked) inside the request's
 * transaction.
 *
 * @param authorization the authorization, or null when none exists in the workspace
 * @param resourceTombstoned whether an exact workspace tombstone names the request's resource
 * @param tombstonePatterns the patterns of the workspace's pattern tombstones; the engine matches
 *     the request's resource against them (step 6)
 * @param scopes per requested scope that the authorization includes, its mutable state
 */
public record CheckSnapshot(
    AuthorizationRow authorization,
    boolean resourceTombstoned,
    List<String> tombstonePatterns,
    Map<String, ScopeState> scopes) {

  public CheckSnapshot {
    tombstonePatterns = List.copyOf(tombstonePatterns);
    scopes = Map.copyOf(scopes);
  }

  /** A snapshot of a workspace without pattern tombstones. */
  public CheckSnapshot(
      AuthorizationRow authorization, boolean resourceTombstoned, Map<String, ScopeState> scopes) {
    this(authorization, resourceTombstoned, List.of(), scopes);
  }

  /**
   * The mutable state of one authorization + scope + resource.
   *
   * @param allowsToday allows already counted on the current UTC day
   * @param activeGrant an active confirmation window, or null
   * @param openNonce an unconsumed, unexpired confirmation nonce, or null
   * @param latestEscalation the most recent escalation, whatever its status, or null
   */
  public record ScopeState(
      long allowsToday, GrantRow activeGrant, NonceRow openNonce, EscalationRow latestEscalation) {
    public static final ScopeState EMPTY = new ScopeState(0, null, null, null);
  }
}
