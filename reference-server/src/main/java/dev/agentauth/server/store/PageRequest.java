package dev.agentauth.server.store;

/**
 * Which page of a list: the rows after {@code after} in the list's key order (exclusive; null for
 * the first page), at most {@code limit} of them.
 */
public record PageRequest(String after, int limit) {

  public PageRequest {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive, got " + limit);
    }
  }

  /** The first page of at most {@code limit} rows. */
  public static PageRequest first(int limit) {
    return new PageRequest(null, limit);
  }
}
