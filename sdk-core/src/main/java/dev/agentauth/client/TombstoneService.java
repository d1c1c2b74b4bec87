package dev.agentauth.client;

import dev.agentauth.client.internal.Endpoints;
import dev.agentauth.client.internal.Page;
import dev.agentauth.client.internal.Transport;
import dev.agentauth.model.Tombstone;
import dev.agentauth.model.TombstonePage;

/**
 * Workspace tombstones ({@code /v1/tombstones}): permanent blocks on exact resource strings or on
 * every resource a pattern matches; checks on a tombstoned resource are denied with {@code
 * resource_tombstoned}. The server compares resource strings as given: normalise resource
 * identifiers the same way before tombstoning and before checking. Tombstones produce no receipt
 * and cannot be removed.
 *
 * <pre>{@code
 * client.tombstones().create("mailbox:42", "account closed");
 * }</pre>
 *
 * <p>Each operation comes in three forms: with the client's defaults, with per-call {@link
 * RequestOptions}, and {@code ...WithResponse} returning an {@link ApiResponse} with the status,
 * headers and {@code X-Request-Id}. Obtain it from {@code client.tombstones()}; the asynchronous
 * twin is {@link TombstoneServiceAsync}. Thread-safe.
 */
public final class TombstoneService {
  private final Transport transport;

  TombstoneService(Transport transport) {
    this.transport = transport;
  }

  /**
   * Tombstones a resource ({@code POST /v1/tombstones}); tombstoning it again returns the existing
   * tombstone. Like {@link #create(String, String, RequestOptions)}, without a reason, with the
   * client's defaults.
   *
   * @param resource the exact resource string to block
   */
  public Tombstone create(String resource) {
    return create(resource, null, RequestOptions.none());
  }

  /**
   * Tombstones a resource ({@code POST /v1/tombstones}); tombstoning it again returns the existing
   * tombstone.
   *
   * @param resource the exact resource string to block
   * @param reason why, or {@code null}
   */
  public Tombstone create(String resource, String reason) {
    return create(resource, reason, RequestOptions.none());
  }

  /**
   * Tombstones a resource ({@code POST /v1/tombstones}); tombstoning it again returns the existing
   * tombstone.
   *
   * @param resource the exact resource string to block
   * @param reason why, or {@code null}
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public Tombstone create(String resource, String reason, RequestOptions options) {
    return createWithResponse(resource, reason, options).value();
  }

  /**
   * Like {@link #create(String, String, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param resource the exact resource string to block
   * @param reason why, or {@code null}
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiResponse<Tombstone> createWithResponse(
      String resource, String reason, RequestOptions options) {
    return transport.execute(Endpoints.createTombstone(resource, reason), options);
  }

  /**
   * Tombstones every resource that {@code resourcePattern} matches ({@code POST /v1/tombstones}
   * with {@code resource_pattern}), with the matcher of a scope's {@code resource_pattern}: {@code
   * *} any run of characters, {@code ?} one, {@code [seq]}, {@code [!seq]}; case-sensitive, whole
   * string. Tombstoning the same pattern again returns the existing tombstone. A workspace may have
   * at most 100 pattern tombstones.
   *
   * <pre>{@code
   * client.tombstones().createPattern("db/prod*", "production is off limits");
   * }</pre>
   *
   * @param resourcePattern the pattern of the resources to block
   * @param reason why, or {@code null}
   */
  public Tombstone createPattern(String resourcePattern, String reason) {
    return createPattern(resourcePattern, reason, RequestOptions.none());
  }

  /**
   * Like {@link #createPattern(String, String)}, with per-call options.
   *
   * @param resourcePattern the pattern of the resources to block
   * @param reason why, or {@code null}
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public Tombstone createPattern(String resourcePattern, String reason, RequestOptions options) {
    return createPatternWithResponse(resourcePattern, reason, options).value();
  }

  /**
   * Like {@link #createPattern(String, String, RequestOptions)}, returning the status, headers and
   * {@code X-Request-Id} with the value.
   *
   * @param resourcePattern the pattern of the resources to block
   * @param reason why, or {@code null}
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiResponse<Tombstone> createPatternWithResponse(
      String resourcePattern, String reason, RequestOptions options) {
    return transport.execute(Endpoints.createTombstonePattern(resourcePattern, reason), options);
  }

  /**
   * Returns one page of tombstones ({@code GET /v1/tombstones}). Like {@link #list(ListParams,
   * RequestOptions)}, the first page, with the client's defaults.
   */
  public TombstonePage list() {
    return list(ListParams.none(), RequestOptions.none());
  }

  /**
   * Returns one page of tombstones ({@code GET /v1/tombstones}).
   *
   * @param params paging
   */
  public TombstonePage list(ListParams params) {
    return list(params, RequestOptions.none());
  }

  /**
   * Returns one page of tombstones ({@code GET /v1/tombstones}).
   *
   * @param params paging
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public TombstonePage list(ListParams params, RequestOptions options) {
    return listWithResponse(params, options).value();
  }

  /**
   * Like {@link #list(ListParams, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param params paging
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiResponse<TombstonePage> listWithResponse(ListParams params, RequestOptions options) {
    return transport.execute(Endpoints.listTombstones(params), options);
  }

  /**
   * Returns every element matching {@code params}, across all pages, fetched lazily as iteration
   * proceeds (starting at {@code params}' cursor, if any).
   *
   * @param params filters and paging (the page size applies to each fetch)
   */
  public AutoPagingIterable<Tombstone> listAutoPaging(ListParams params) {
    return listAutoPaging(params, RequestOptions.none());
  }

  /**
   * Returns every element matching {@code params}, across all pages; each page is fetched with
   * {@code options}.
   *
   * @param params filters and paging (the page size applies to each fetch)
   * @param options per-call timeout, retries and headers of each page fetch
   */
  public AutoPagingIterable<Tombstone> listAutoPaging(ListParams params, RequestOptions options) {
    java.util.Objects.requireNonNull(params, "params");
    return new AutoPagingIterable<>(
        cursor -> {
          var page =
              transport
                  .execute(Endpoints.listTombstones(params.withCursor(cursor)), options)
                  .value();
          return new Page<>(page.tombstones(), page.hasMore(), page.nextCursor());
        },
        params.cursor());
  }
}
