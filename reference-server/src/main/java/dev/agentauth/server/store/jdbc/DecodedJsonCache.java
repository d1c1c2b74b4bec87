package dev.agentauth.server.store.jdbc;

import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.concurrent.ConcurrentMap;

/**
 * The JSON columns a store has decoded (scopes, scope lists, escalation targets), shared by every
 * connection of the store and keyed by the column's type and text, since the same scopes recur on
 * every check. Bounded by weight, not by entries: it holds at most {@link #MAX_BYTES} of estimated
 * heap, the least recently used entries going first (evicted on the thread that adds), so a few
 * huge rule sets cannot pin the heap.
 */
final class DecodedJsonCache {
  /** The most estimated heap the cache holds: 64 MiB. */
  static final long MAX_BYTES = 64L << 20;

  /** Estimated bytes per character of a key (the key holds the whole JSON text). */
  static final int BYTES_PER_CHAR = 10;

  private static final int ENTRY = 128;

  private DecodedJsonCache() {}

  /** A new cache of at most {@link #MAX_BYTES}. */
  static ConcurrentMap<String, Object> create() {
    return create(MAX_BYTES);
  }

  static ConcurrentMap<String, Object> create(long maxBytes) {
    return Caffeine.newBuilder()
        .maximumWeight(maxBytes)
        .weigher(DecodedJsonCache::weight)
        .executor(Runnable::run)
        .<String, Object>build()
        .asMap();
  }

  /**
   * An entry's estimated heap: its key (the JSON text, two bytes a character at worst) and the
   * decoded value, counted as {@link #BYTES_PER_CHAR} bytes per character of that text in all —
   * generous for the small strings and lists a rule set decodes to — plus a fixed cost.
   */
  static int weight(String key, Object value) {
    return (int) Math.min(Integer.MAX_VALUE, ENTRY + (long) BYTES_PER_CHAR * key.length());
  }
}
