package dev.agentauth.client;

import dev.agentauth.client.internal.Validation;
import dev.agentauth.model.EscalationStatus;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Filter and paging of {@code GET /v1/escalations}, for approver tools.
 *
 * <pre>{@code
 * client.escalations().listAutoPaging(EscalationListParams.status(EscalationStatus.PENDING))
 *     .stream().forEach(approverInbox::add);
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class EscalationListParams {
  private static final EscalationListParams NONE = new EscalationListParams(null, null, null);

  private final EscalationStatus status;
  private final Integer limit;
  private final String cursor;

  private EscalationListParams(EscalationStatus status, Integer limit, String cursor) {
    this.status = status;
    this.limit = limit;
    this.cursor = cursor;
  }

  /** Returns the first page of every escalation, with the service's default page size. */
  public static EscalationListParams none() {
    return NONE;
  }

  /** Returns the first page of escalations in {@code status}. */
  public static EscalationListParams status(EscalationStatus status) {
    return new EscalationListParams(status, null, null);
  }

  /** Returns the {@code status} filter, or {@code null}. */
  public EscalationStatus statusFilter() {
    return status;
  }

  /** Returns the page size, or {@code null}. */
  public Integer limit() {
    return limit;
  }

  /** Returns the cursor, or {@code null} for the first page. */
  public String cursor() {
    return cursor;
  }

  /**
   * Returns a copy with a page size.
   *
   * @throws IllegalArgumentException unless 1–100
   */
  public EscalationListParams withLimit(int limit) {
    return new EscalationListParams(status, Validation.limit(limit), cursor);
  }

  /** Returns a copy fetching the page after the one whose {@code next_cursor} this is. */
  public EscalationListParams withCursor(String cursor) {
    return new EscalationListParams(status, limit, cursor);
  }

  /** Returns the query parameters in wire form, only those that are set. */
  public Map<String, String> toQuery() {
    Map<String, String> q = new LinkedHashMap<>();
    if (status != null) {
      q.put("status", status.value());
    }
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
    return "EscalationListParams{status="
        + status
        + ", limit="
        + limit
        + ", cursor="
        + cursor
        + "}";
  }
}
