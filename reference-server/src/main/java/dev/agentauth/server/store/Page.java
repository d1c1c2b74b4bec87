package dev.agentauth.server.store;

import java.util.List;

/** One page of rows in key order; {@code hasMore} says whether rows follow the last one. */
public record Page<T>(List<T> items, boolean hasMore) {
  public Page {
    items = List.copyOf(items);
  }
}
