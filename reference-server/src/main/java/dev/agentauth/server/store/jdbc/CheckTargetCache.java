package dev.agentauth.server.store.jdbc;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.domain.ScopeRule;
import dev.agentauth.server.store.CheckTx.CheckTarget;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the SQLite writer last read of the rows every check needs: authorizations, whether a
 * resource is tombstoned and a workspace's tombstone patterns. The writer is the only connection of
 * this process that writes, so it can keep what it read and skip reading it again, as long as it
 * forgets:
 *
 * <ul>
 *   <li>an authorization or tombstone it writes itself ({@link #authorizationWritten}, {@link
 *       #tombstoneWritten}, {@link #tombstonePatternWritten}, called by the {@link JdbcTx}
 *       statements that write them);
 *   <li>everything, when a transaction or savepoint is rolled back (a row read after a write the
 *       rollback undid would otherwise stay) and when another connection — another process on the
 *       same file — has committed since the last batch ({@code PRAGMA data_version}).
 * </ul>
 *
 * <p>Only existing authorizations are kept: a check on an unknown id reads again. Used by the
 * writer thread alone (its eviction runs on that thread too). Bounded by weight, not by entries: it
 * holds at most {@link #MAX_BYTES} of estimated heap ({@link #weight}), the least recently used
 * entries going first, so a few huge authorizations cannot pin the heap.
 */
final class CheckTargetCache {
  /** The most estimated heap the cache holds: 64 MiB. */
  static final long MAX_BYTES = 64L << 20;

  private record ResourceKey(String workspaceId, String resource) {}

  /** The patterns of a workspace's pattern tombstones. */
  private record PatternsKey(String workspaceId) {}

  private final Cache<Object, Object> entries;
  private long hits;

  CheckTargetCache() {
    this(MAX_BYTES);
  }

  CheckTargetCache(long maxBytes) {
    this.entries =
        Caffeine.newBuilder()
            .maximumWeight(maxBytes)
            .weigher(CheckTargetCache::weight)
            .executor(Runnable::run)
            .build();
  }

  /** The cached target of a check, or null when it must be read. */
  CheckTarget get(String workspaceId, String authorizationId, String resource) {
    AuthorizationRow row =
        (AuthorizationRow) entries.getIfPresent(new AuthKey(workspaceId, authorizationId));
    Boolean gone =
        resource == null
            ? Boolean.FALSE
            : (Boolean) entries.getIfPresent(new ResourceKey(workspaceId, resource));
    List<String> patterns = patterns(workspaceId);
    if (row == null || gone == null || patterns == null) {
      return null;
    }
    hits++;
    return new CheckTarget(Optional.of(row), gone, patterns);
  }

  /** The cached tombstone patterns of a workspace, or null when they must be read. */
  @SuppressWarnings("unchecked")
  List<String> patterns(String workspaceId) {
    return (List<String>) entries.getIfPresent(new PatternsKey(workspaceId));
  }

  /** Keeps the tombstone patterns of a workspace just read in the writer's transaction. */
  void putPatterns(String workspaceId, List<String> patterns) {
    entries.put(new PatternsKey(workspaceId), List.copyOf(patterns));
  }

  /** Keeps a target of a check on {@code resource} just read in the writer's transaction. */
  void put(String resource, CheckTarget target) {
    if (target.authorization().isEmpty()) {
      return;
    }
    AuthorizationRow row = target.authorization().get();
    entries.put(new AuthKey(row.workspaceId(), row.authorizationId()), row);
    if (resource != null) {
      entries.put(new ResourceKey(row.workspaceId(), resource), target.resourceTombstoned());
    }
    putPatterns(row.workspaceId(), target.tombstonePatterns());
  }

  void authorizationWritten(String workspaceId, String authorizationId) {
    entries.invalidate(new AuthKey(workspaceId, authorizationId));
  }

  void tombstoneWritten(String workspaceId, String resource) {
    entries.invalidate(new ResourceKey(workspaceId, resource));
  }

  void tombstonePatternWritten(String workspaceId) {
    entries.invalidate(new PatternsKey(workspaceId));
  }

  void clear() {
    entries.invalidateAll();
  }

  /** Targets served from the cache so far. */
  long hits() {
    return hits;
  }

  /** The estimated heap the cache holds now, in bytes (after pending evictions ran). */
  long weightedBytes() {
    entries.cleanUp();
    return entries.policy().eviction().orElseThrow().weightedSize().orElseThrow();
  }

  /** How many entries (authorizations and tombstone answers) the cache holds. */
  long size() {
    entries.cleanUp();
    return entries.estimatedSize();
  }

  /**
   * An estimate of the heap an entry keeps reachable, in bytes: a fixed cost per object plus two
   * bytes per character of every string (UTF-16, the worst case), metadata included.
   */
  static int weight(Object key, Object value) {
    long bytes = OBJECT;
    if (key instanceof AuthKey k) {
      bytes += chars(k.workspaceId()) + chars(k.authorizationId());
    } else if (key instanceof ResourceKey k) {
      bytes += chars(k.workspaceId()) + chars(k.resource());
    } else if (key instanceof PatternsKey k) {
      bytes += chars(k.workspaceId());
    }
    if (value instanceof AuthorizationRow row) {
      bytes += authorizationBytes(row);
    } else if (value instanceof List<?> list) {
      bytes += OBJECT;
      for (Object s : list) {
        bytes += 8 + chars((String) s);
      }
    }
    return (int) Math.min(Integer.MAX_VALUE, bytes);
  }

  private static final long OBJECT = 64;

  private static long chars(String s) {
    return s == null ? 0 : OBJECT + 2L * s.length();
  }

  private static long authorizationBytes(AuthorizationRow row) {
    long bytes =
        4 * OBJECT
            + chars(row.workspaceId())
            + chars(row.authorizationId())
            + chars(row.userId())
            + chars(row.agentId())
            + chars(row.bundleId());
    for (ScopeRule rule : row.scopes()) {
      bytes += OBJECT + chars(rule.name()) + chars(rule.resourcePattern());
      if (rule.allowedInitiators() != null) {
        bytes += strings(rule.allowedInitiators());
      }
    }
    bytes += strings(row.requiresConfirmFor()) + strings(row.requiresEscalationFor());
    for (Map.Entry<String, String> e : row.escalationTargets().entrySet()) {
      bytes += OBJECT + chars(e.getKey()) + chars(e.getValue());
    }
    return bytes + json(row.metadata());
  }

  private static long strings(List<String> list) {
    long bytes = OBJECT;
    for (String s : list) {
      bytes += 8 + chars(s);
    }
    return bytes;
  }

  private static long json(JsonNode node) {
    if (node == null) {
      return 0;
    }
    long bytes = OBJECT;
    if (node.isTextual()) {
      bytes += chars(node.textValue());
    } else if (node.isObject()) {
      for (Map.Entry<String, JsonNode> e : node.properties()) {
        bytes += chars(e.getKey()) + json(e.getValue());
      }
    } else if (node.isArray()) {
      for (JsonNode element : node) {
        bytes += 8 + json(element);
      }
    }
    return bytes;
  }
}
