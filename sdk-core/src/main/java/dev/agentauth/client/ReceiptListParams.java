package dev.agentauth.client;

import dev.agentauth.client.internal.Validation;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.model.Decision;
import dev.agentauth.model.ReceiptEvent;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Filters and paging of {@code GET /v1/receipts}; filters combine with AND, {@code from} is
 * inclusive and {@code to} exclusive (both on {@code issued_at}). A cursor is bound to its filters.
 *
 * <pre>{@code
 * // the whole chain of one authorization, oldest first
 * client.receipts().listAutoPaging(ReceiptListParams.builder().authorizationId(authId).build())
 *     .stream()
 *     .forEach(summary -> ...);
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class ReceiptListParams {
  private final String authorizationId;
  private final String userId;
  private final String resource;
  private final String sessionId;
  private final String scope;
  private final ReceiptEvent event;
  private final Decision decision;
  private final Instant from;
  private final Instant to;
  private final Integer limit;
  private final String cursor;

  private ReceiptListParams(Builder b) {
    this.authorizationId = b.authorizationId;
    this.userId = b.userId;
    this.resource = b.resource;
    this.sessionId = b.sessionId;
    this.scope = b.scope;
    this.event = b.event;
    this.decision = b.decision;
    this.from = b.from;
    this.to = b.to;
    this.limit = b.limit;
    this.cursor = b.cursor;
  }

  /** Returns an empty builder (no filter). */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns a builder holding these parameters. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.authorizationId = authorizationId;
    b.userId = userId;
    b.resource = resource;
    b.sessionId = sessionId;
    b.scope = scope;
    b.event = event;
    b.decision = decision;
    b.from = from;
    b.to = to;
    b.limit = limit;
    b.cursor = cursor;
    return b;
  }

  /** Returns a copy fetching the page after the one whose {@code next_cursor} this is. */
  public ReceiptListParams withCursor(String cursor) {
    return toBuilder().cursor(cursor).build();
  }

  /** Returns the cursor, or {@code null} for the first page. */
  public String cursor() {
    return cursor;
  }

  /**
   * Returns the query parameters in wire form ({@code authorization_id}, ..., {@code from} and
   * {@code to} as RFC 3339), only those that are set, in a stable order.
   */
  public Map<String, String> toQuery() {
    Map<String, String> q = new LinkedHashMap<>();
    put(q, "authorization_id", authorizationId);
    put(q, "user_id", userId);
    put(q, "resource", resource);
    put(q, "session_id", sessionId);
    put(q, "scope", scope);
    put(q, "event", event == null ? null : event.value());
    put(q, "decision", decision == null ? null : decision.value());
    put(q, "from", from == null ? null : AgentAuthJson.formatInstant(from));
    put(q, "to", to == null ? null : AgentAuthJson.formatInstant(to));
    put(q, "cursor", cursor);
    put(q, "limit", limit == null ? null : limit.toString());
    return q;
  }

  private static void put(Map<String, String> q, String name, String value) {
    if (value != null) {
      q.put(name, value);
    }
  }

  @Override
  public String toString() {
    return "ReceiptListParams" + toQuery();
  }

  /** Builder of {@link ReceiptListParams}. Not thread-safe. */
  public static final class Builder {
    private String authorizationId;
    private String userId;
    private String resource;
    private String sessionId;
    private String scope;
    private ReceiptEvent event;
    private Decision decision;
    private Instant from;
    private Instant to;
    private Integer limit;
    private String cursor;

    private Builder() {}

    /** Filters by authorization: its full chain (creation, checks, resolutions, revocation). */
    public Builder authorizationId(String authorizationId) {
      this.authorizationId = authorizationId;
      return this;
    }

    /** Filters by end-user. */
    public Builder userId(String userId) {
      this.userId = userId;
      return this;
    }

    /** Filters by resource. */
    public Builder resource(String resource) {
      this.resource = resource;
      return this;
    }

    /** Filters by session. */
    public Builder sessionId(String sessionId) {
      this.sessionId = sessionId;
      return this;
    }

    /** Filters by scope name. */
    public Builder scope(String scope) {
      this.scope = scope;
      return this;
    }

    /** Filters by event ({@code authorization.create}, ...). */
    public Builder event(ReceiptEvent event) {
      this.event = event;
      return this;
    }

    /** Filters by decision. */
    public Builder decision(Decision decision) {
      this.decision = decision;
      return this;
    }

    /** Keeps receipts issued at or after {@code from}. */
    public Builder from(Instant from) {
      this.from = from;
      return this;
    }

    /** Keeps receipts issued before {@code to}. */
    public Builder to(Instant to) {
      this.to = to;
      return this;
    }

    /**
     * Sets the page size.
     *
     * @throws IllegalArgumentException unless 1–100
     */
    public Builder limit(int limit) {
      this.limit = Validation.limit(limit);
      return this;
    }

    /** Starts after the page whose {@code next_cursor} this is. */
    public Builder cursor(String cursor) {
      this.cursor = cursor;
      return this;
    }

    /**
     * Returns the parameters; the builder can be reused.
     *
     * @throws IllegalArgumentException if {@code from} is not before {@code to}
     */
    public ReceiptListParams build() {
      if (from != null && to != null && !from.isBefore(to)) {
        throw new IllegalArgumentException(
            "expected from before to, found from=" + from + " and to=" + to);
      }
      return new ReceiptListParams(this);
    }
  }
}
