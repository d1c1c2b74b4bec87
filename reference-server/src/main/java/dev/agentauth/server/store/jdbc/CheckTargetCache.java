package dev.agentauth.server.store.jdbc;

import dev.agentauth.server.store.AuthorizationRow;
import dev.agentauth.server.store.Tx.CheckTarget;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What the SQLite writer last read of the rows every check needs: authorizations and whether a
 * resource is tombstoned. The writer is the only connection of this process that writes, so it can
 * keep what it read and skip reading it again, as long as it forgets:
 *
 * <ul>
 *   <li>an authorization or tombstone it writes itself ({@link #authorizationWritten}, {@link
 *       #tombstoneWritten}, called by the {@link JdbcTx} statements that write them);
 *   <li>everything, when a transaction or savepoint is rolled back (a row read after a write the
 *       rollback undid would otherwise stay) and when another connection — another process on the
 *       same file — has committed since the last batch ({@code PRAGMA data_version}).
 * </ul>
 *
 * <p>Only existing authorizations are kept: a check on an unknown id reads again. Used by the
 * writer thread alone, so it is not synchronized. Bounded: it starts over when full.
 */
final class CheckTargetCache {
  private static final int MAX_ENTRIES = 10_000;

  private record ResourceKey(String workspaceId, String resource) {}

  private final Map<AuthKey, AuthorizationRow> authorizations = new HashMap<>();
  private final Map<ResourceKey, Boolean> tombstoned = new HashMap<>();
  private long hits;

  /** The cached target of a check, or null when it must be read. */
  CheckTarget get(String workspaceId, String authorizationId, String resource) {
    AuthorizationRow row = authorizations.get(new AuthKey(workspaceId, authorizationId));
    Boolean gone =
        resource == null ? Boolean.FALSE : tombstoned.get(new ResourceKey(workspaceId, resource));
    if (row == null || gone == null) {
      return null;
    }
    hits++;
    return new CheckTarget(Optional.of(row), gone);
  }

  /** Keeps a target of a check on {@code resource} just read in the writer's transaction. */
  void put(String resource, CheckTarget target) {
    if (target.authorization().isEmpty()) {
      return;
    }
    if (authorizations.size() >= MAX_ENTRIES || tombstoned.size() >= MAX_ENTRIES) {
      clear();
    }
    AuthorizationRow row = target.authorization().get();
    authorizations.put(new AuthKey(row.workspaceId(), row.authorizationId()), row);
    if (resource != null) {
      tombstoned.put(new ResourceKey(row.workspaceId(), resource), target.resourceTombstoned());
    }
  }

  void authorizationWritten(String workspaceId, String authorizationId) {
    authorizations.remove(new AuthKey(workspaceId, authorizationId));
  }

  void tombstoneWritten(String workspaceId, String resource) {
    tombstoned.remove(new ResourceKey(workspaceId, resource));
  }

  void clear() {
    authorizations.clear();
    tombstoned.clear();
  }

  /** Targets served from the cache so far. */
  long hits() {
    return hits;
  }
}
