package dev.agentauth.server.store;

import java.time.Instant;

/**
 * A permanent block within a workspace, on one exact {@code resource} string or on every resource a
 * {@code resourcePattern} matches (the matcher of a scope's {@code resource_pattern}); exactly one
 * of the two is set.
 */
public record TombstoneRow(
    String workspaceId, String resource, String resourcePattern, String reason, Instant createdAt) {

  public TombstoneRow {
    if ((resource == null) == (resourcePattern == null)) {
      throw new IllegalArgumentException("a tombstone has exactly one of resource and pattern");
    }
  }

  /** An exact tombstone. */
  public TombstoneRow(String workspaceId, String resource, String reason, Instant createdAt) {
    this(workspaceId, resource, null, reason, createdAt);
  }

  /** A pattern tombstone. */
  public static TombstoneRow pattern(
      String workspaceId, String resourcePattern, String reason, Instant createdAt) {
    return new TombstoneRow(workspaceId, null, resourcePattern, reason, createdAt);
  }

  /** Whether this is a pattern tombstone. */
  public boolean isPattern() {
    return resourcePattern != null;
  }
}
