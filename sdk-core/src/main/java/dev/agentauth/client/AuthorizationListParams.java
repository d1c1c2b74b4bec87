package dev.agentauth.client;

import dev.agentauth.client.internal.Validation;
import dev.agentauth.model.AuthorizationStatus;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Filters and paging of {@code GET /v1/authorizations}; filters combine with AND.
 *
 * <pre>{@code
 * for (Authorization a : client.authorizations().listAutoPaging(
 *     AuthorizationListParams.builder().userId(userId).status(AuthorizationStatus.ACTIVE).build())) {
 *   ...
 * }
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class AuthorizationListParams {
  private final String userId;
  private final String agentId;
  private final AuthorizationStatus status;
  private final Integer limit;
  private final String cursor;

  private AuthorizationListParams(Builder b, String cursor) {
    this.userId = b.userId;
    this.agentId = b.agentId;
    this.status = b.status;
    this.limit = b.limit;
    this.cursor = cursor;
  }

  /** Returns an empty builder (no filter, service's default page size). */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns the {@code user_id} filter, or {@code null}. */
  public String userId() {
    return userId;
  }

  /** Returns the {@code agent_id} filter, or {@code null}. */
  public String agentId() {
    return agentId;
  }

  /** Returns the {@code status} filter, or {@code null}. */
  public AuthorizationStatus status() {
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

  /** Returns a copy fetching the page after the one whose {@code next_cursor} this is. */
  public AuthorizationListParams withCursor(String cursor) {
    Builder b = new Builder();
    b.userId = userId;
    b.agentId = agentId;
    b.status = status;
    b.limit = limit;
    return new AuthorizationListParams(b, cursor);
  }

  /** Returns the query parameters in wire form, only those that are set. */
  public Map<String, String> toQuery() {
    Map<String, String> q = new LinkedHashMap<>();
    if (userId != null) {
      q.put("user_id", userId);
    }
    if (agentId != null) {
      q.put("agent_id", agentId);
    }
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
    return "AuthorizationListParams{userId="
        + userId
        + ", agentId="
        + agentId
        + ", status="
        + status
        + ", limit="
        + limit
        + ", cursor="
        + cursor
        + "}";
  }

  /** Builder of {@link AuthorizationListParams}. Not thread-safe. */
  public static final class Builder {
    private String userId;
    private String agentId;
    private AuthorizationStatus status;
    private Integer limit;
    private String cursor;

    private Builder() {}

    /** Filters by end-user. */
    public Builder userId(String userId) {
      this.userId = userId;
      return this;
    }

    /** Filters by agent. */
    public Builder agentId(String agentId) {
      this.agentId = agentId;
      return this;
    }

    /** Filters by status ({@code active}, {@code revoked}, {@code expired}). */
    public Builder status(AuthorizationStatus status) {
      this.status = status;
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

    /** Returns the parameters; the builder can be reused. */
    public AuthorizationListParams build() {
      return new AuthorizationListParams(this, cursor);
    }
  }
}
