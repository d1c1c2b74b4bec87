package dev.agentauth.server.store;

import java.util.List;

/**
 * One page of rows in key order; {@code hasMore} says whether rows follow the last one. A page that
 * stopped at the end of the rows it may examine before its filters found {@code limit} rows sets
 * {@code resumeAfter}: the key the next page starts after (its rows, possibly none, all come before
 * it); otherwise the next page starts after the last row.
 */
public record Page<T>(List<T> items, boolean hasMore, String resumeAfter) {
  public Page {
    items = List.copyOf(items);
    if (resumeAfter != null && !hasMore) {
      throw new IllegalArgumentException("resumeAfter needs hasMore");
    }
  }

  public Page(List<T> items, boolean hasMore) {
    this(items, hasMore, null);
  }
}
