package dev.agentauth.client;

import dev.agentauth.client.internal.Endpoints;
import dev.agentauth.client.internal.Futures;
import dev.agentauth.client.internal.Transport;
import dev.agentauth.model.Tombstone;
import dev.agentauth.model.TombstonePage;
import java.util.concurrent.CompletableFuture;

/**
 * The asynchronous twin of {@link TombstoneService}: the same operations, returning {@link
 * CompletableFuture}s completed on OkHttp's dispatcher threads (keep continuations short or hop to
 * your own executor). Failures complete the future exceptionally with the same {@link
 * AgentAuthException}s the blocking service throws; invalid arguments throw at once. Cancelling a
 * future cancels its HTTP call. Obtain it from {@code client.async().tombstones()}.
 *
 * <p>Thread-safe.
 */
public final class TombstoneServiceAsync {
  private final Transport transport;

  TombstoneServiceAsync(Transport transport) {
    this.transport = transport;
  }

  /**
   * Tombstones a resource ({@code POST /v1/tombstones}); tombstoning it again returns the existing
   * tombstone. Like {@link #create(String, String, RequestOptions)}, without a reason, with the
   * client's defaults.
   *
   * @param resource the exact resource string to block
   */
  public CompletableFuture<Tombstone> create(String resource) {
    return create(resource, null, RequestOptions.none());
  }

  /**
   * Tombstones a resource ({@code POST /v1/tombstones}); tombstoning it again returns the existing
   * tombstone.
   *
   * @param resource the exact resource string to block
   * @param reason why, or {@code null}
   */
  public CompletableFuture<Tombstone> create(String resource, String reason) {
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
  public CompletableFuture<Tombstone> create(
      String resource, String reason, RequestOptions options) {
    return Futures.map(createWithResponse(resource, reason, options), ApiResponse::value);
  }

  /**
   * Like {@link #create(String, String, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param resource the exact resource string to block
   * @param reason why, or {@code null}
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiResponse<Tombstone>> createWithResponse(
      String resource, String reason, RequestOptions options) {
    return transport.executeAsync(Endpoints.createTombstone(resource, reason), options);
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
  public CompletableFuture<Tombstone> createPattern(String resourcePattern, String reason) {
    return createPattern(resourcePattern, reason, RequestOptions.none());
  }

  /**
   * Like {@link #createPattern(String, String)}, with per-call options.
   *
   * @param resourcePattern the pattern of the resources to block
   * @param reason why, or {@code null}
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<Tombstone> createPattern(
      String resourcePattern, String reason, RequestOptions options) {
    return Futures.map(
        createPatternWithResponse(resourcePattern, reason, options), ApiResponse::value);
  }

  /**
   * Like {@link #createPattern(String, String, RequestOptions)}, returning the status, headers and
   * {@code X-Request-Id} with the value.
   *
   * @param resourcePattern the pattern of the resources to block
   * @param reason why, or {@code null}
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiResponse<Tombstone>> createPatternWithResponse(
      String resourcePattern, String reason, RequestOptions options) {
    return transport.executeAsync(
        Endpoints.createTombstonePattern(resourcePattern, reason), options);
  }

  /**
   * Returns one page of tombstones ({@code GET /v1/tombstones}). Like {@link #list(ListParams,
   * RequestOptions)}, the first page, with the client's defaults.
   */
  public CompletableFuture<TombstonePage> list() {
    return list(ListParams.none(), RequestOptions.none());
  }

  /**
   * Returns one page of tombstones ({@code GET /v1/tombstones}).
   *
   * @param params paging
   */
  public CompletableFuture<TombstonePage> list(ListParams params) {
    return list(params, RequestOptions.none());
  }

  /**
   * Returns one page of tombstones ({@code GET /v1/tombstones}).
   *
   * @param params paging
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<TombstonePage> list(ListParams params, RequestOptions options) {
    return Futures.map(listWithResponse(params, options), ApiResponse::value);
  }

  /**
   * Like {@link #list(ListParams, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param params paging
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiResponse<TombstonePage>> listWithResponse(
      ListParams params, RequestOptions options) {
    return transport.executeAsync(Endpoints.listTombstones(params), options);
  }
}
