package dev.agentauth.client;

import dev.agentauth.client.internal.Validation;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Paging of a list endpoint without filters (bundles, tombstones): a page size ({@code limit},
 * 1–100; the service's default when unset) and the {@code cursor} of a previous page. To walk every
 * page, prefer the services' {@code listAutoPaging} methods.
 *
 * <p>Immutable and thread-safe.
 */
public final class ListParams {
  private static final ListParams NONE = new ListParams(null, null);

  private final Integer limit;
  private final String cursor;

  private ListParams(Integer limit, String cursor) {
    this.limit = limit;
    this.cursor = cursor;
  }

  /** Returns the first page with the service's default page size. */
  public static ListParams none() {
    return NONE;
  }

  /**
   * Returns a copy with a page size.
   *
   * @throws IllegalArgumentException unless {@code limit} is 1–100
   */
  public ListParams withLimit(int limit) {
    return new ListParams(Validation.limit(limit), cursor);
  }

  /** Returns the page size, or {@code null} for the service's default. */
  public Integer limit() {
    return limit;
  }

  /** Returns the cursor, or {@code null} for the first page. */
  public String cursor() {
    return cursor;
  }

  /** Returns a copy fetching the page after the one whose {@code next_cursor} this is. */
  public ListParams withCursor(String cursor) {
    return new ListParams(limit, cursor);
  }

  /** Returns the query parameters in wire form, only those that are set. */
  public Map<String, String> toQuery() {
    Map<String, String> q = new LinkedHashMap<>();
    if (cursor != null) {
      q.put("cursor", cursor);
    }
    if (limit != null) {
      q.put("limit", limit.toString());
    }
    return q;
  }

  @Override
  public String toString() {
    return "ListParams{limit=" + limit + ", cursor=" + cursor + "}";
  }
}
