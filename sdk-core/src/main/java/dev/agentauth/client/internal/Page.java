package dev.agentauth.client.internal;

import java.util.List;

/**
 * One page of any list endpoint, in the shape every list shares. Not part of the public API.
 *
 * @param <T> the element type
 * @param items the page's elements
 * @param hasMore whether another page follows
 * @param nextCursor the cursor of the next page, or {@code null}
 */
public record Page<T>(List<T> items, boolean hasMore, String nextCursor) {}
