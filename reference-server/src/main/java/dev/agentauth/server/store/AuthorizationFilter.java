package dev.agentauth.server.store;

import dev.agentauth.model.AuthorizationStatus;
import java.time.Instant;

/**
 * Which authorizations of a workspace a list returns: those of {@code userId} and {@code agentId}
 * when set, in {@code status} at {@code now} when set.
 */
public record AuthorizationFilter(
    String workspaceId,
    String userId,
    String agentId,
    AuthorizationStatus.Known status,
    Instant now) {

  /** Every authorization of the workspace. */
  public static AuthorizationFilter all(String workspaceId, Instant now) {
    return new AuthorizationFilter(workspaceId, null, null, null, now);
  }
}
