package dev.agentauth.client;

import dev.agentauth.client.internal.Endpoints;
import dev.agentauth.client.internal.Futures;
import dev.agentauth.client.internal.Transport;
import dev.agentauth.model.Bundle;
import dev.agentauth.model.BundlePage;
import java.util.concurrent.CompletableFuture;

/**
 * The asynchronous twin of {@link BundleService}: the same operations, returning {@link
 * CompletableFuture}s completed on OkHttp's dispatcher threads (keep continuations short or hop to
 * your own executor). Failures complete the future exceptionally with the same {@link
 * AgentAuthException}s the blocking service throws; invalid arguments throw at once. Cancelling a
 * future cancels its HTTP call. Obtain it from {@code client.async().bundles()}.
 *
 * <p>Thread-safe.
 */
public final class BundleServiceAsync {
  private final Transport transport;

  BundleServiceAsync(Transport transport) {
    this.transport = transport;
  }

  /**
   * Creates a bundle ({@code POST /v1/agent-scope-bundles}, 201). A soft-deleted id may be created
   * again. Completes exceptionally with {@link ConflictException} where the blocking service would
   * throw.
   *
   * @param params the bundle, with its id
   * @throws IllegalArgumentException (immediately) if {@code params} has no id
   */
  public CompletableFuture<Bundle> create(BundleParams params) {
    return create(params, RequestOptions.none());
  }

  /**
   * Creates a bundle ({@code POST /v1/agent-scope-bundles}, 201). A soft-deleted id may be created
   * again. Completes exceptionally with {@link ConflictException} where the blocking service would
   * throw.
   *
   * @param params the bundle, with its id
   * @param options per-call timeout, retries, idempotency key, headers
   * @throws IllegalArgumentException (immediately) if {@code params} has no id
   */
  public CompletableFuture<Bundle> create(BundleParams params, RequestOptions options) {
    return Futures.map(createWithResponse(params, options), ApiResponse::value);
  }

  /**
   * Like {@link #create(BundleParams, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param params the bundle, with its id
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiResponse<Bundle>> createWithResponse(
      BundleParams params, RequestOptions options) {
    return transport.executeAsync(Endpoints.createBundle(params), options);
  }

  /**
   * Returns a bundle ({@code GET /v1/agent-scope-bundles/{id}}). Completes exceptionally with
   * {@link NotFoundException} where the blocking service would throw.
   *
   * @param bundleId the bundle
   */
  public CompletableFuture<Bundle> get(String bundleId) {
    return get(bundleId, RequestOptions.none());
  }

  /**
   * Returns a bundle ({@code GET /v1/agent-scope-bundles/{id}}). Completes exceptionally with
   * {@link NotFoundException} where the blocking service would throw.
   *
   * @param bundleId the bundle
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<Bundle> get(String bundleId, RequestOptions options) {
    return Futures.map(getWithResponse(bundleId, options), ApiResponse::value);
  }

  /**
   * Like {@link #get(String, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param bundleId the bundle
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiResponse<Bundle>> getWithResponse(
      String bundleId, RequestOptions options) {
    return transport.executeAsync(Endpoints.getBundle(bundleId), options);
  }

  /**
   * Returns one page of active bundles ({@code GET /v1/agent-scope-bundles}). Like {@link
   * #list(ListParams, RequestOptions)}, the first page, with the client's defaults.
   */
  public CompletableFuture<BundlePage> list() {
    return list(ListParams.none(), RequestOptions.none());
  }

  /**
   * Returns one page of active bundles ({@code GET /v1/agent-scope-bundles}).
   *
   * @param params paging
   */
  public CompletableFuture<BundlePage> list(ListParams params) {
    return list(params, RequestOptions.none());
  }

  /**
   * Returns one page of active bundles ({@code GET /v1/agent-scope-bundles}).
   *
   * @param params paging
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<BundlePage> list(ListParams params, RequestOptions options) {
    return Futures.map(listWithResponse(params, options), ApiResponse::value);
  }

  /**
   * Like {@link #list(ListParams, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param params paging
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiResponse<BundlePage>> listWithResponse(
      ListParams params, RequestOptions options) {
    return transport.executeAsync(Endpoints.listBundles(params), options);
  }

  /**
   * Replaces a bundle's content ({@code PUT /v1/agent-scope-bundles/{id}}). Completes exceptionally
   * with {@link NotFoundException} where the blocking service would throw.
   *
   * @param bundleId the bundle
   * @param params the new content; its id absent or equal to {@code bundleId}
   * @throws IllegalArgumentException (immediately) if {@code params} names another id
   */
  public CompletableFuture<Bundle> edit(String bundleId, BundleParams params) {
    return edit(bundleId, params, RequestOptions.none());
  }

  /**
   * Replaces a bundle's content ({@code PUT /v1/agent-scope-bundles/{id}}). Completes exceptionally
   * with {@link NotFoundException} where the blocking service would throw.
   *
   * @param bundleId the bundle
   * @param params the new content; its id absent or equal to {@code bundleId}
   * @param options per-call timeout, retries, idempotency key, headers
   * @throws IllegalArgumentException (immediately) if {@code params} names another id
   */
  public CompletableFuture<Bundle> edit(
      String bundleId, BundleParams params, RequestOptions options) {
    return Futures.map(editWithResponse(bundleId, params, options), ApiResponse::value);
  }

  /**
   * Like {@link #edit(String, BundleParams, RequestOptions)}, returning the status, headers and
   * {@code X-Request-Id} with the value.
   *
   * @param bundleId the bundle
   * @param params the new content; its id absent or equal to {@code bundleId}
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiResponse<Bundle>> editWithResponse(
      String bundleId, BundleParams params, RequestOptions options) {
    return transport.executeAsync(Endpoints.editBundle(bundleId, params), options);
  }

  /**
   * Soft-deletes a bundle ({@code DELETE /v1/agent-scope-bundles/{id}}); returns it with {@code
   * status} {@code deleted}. Completes exceptionally with {@link NotFoundException} where the
   * blocking service would throw.
   *
   * @param bundleId the bundle
   */
  public CompletableFuture<Bundle> delete(String bundleId) {
    return delete(bundleId, RequestOptions.none());
  }

  /**
   * Soft-deletes a bundle ({@code DELETE /v1/agent-scope-bundles/{id}}); returns it with {@code
   * status} {@code deleted}. Completes exceptionally with {@link NotFoundException} where the
   * blocking service would throw.
   *
   * @param bundleId the bundle
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<Bundle> delete(String bundleId, RequestOptions options) {
    return Futures.map(deleteWithResponse(bundleId, options), ApiResponse::value);
  }

  /**
   * Like {@link #delete(String, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param bundleId the bundle
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiResponse<Bundle>> deleteWithResponse(
      String bundleId, RequestOptions options) {
    return transport.executeAsync(Endpoints.deleteBundle(bundleId), options);
  }
}
