package dev.agentauth.client;

import dev.agentauth.client.internal.Endpoints;
import dev.agentauth.client.internal.Page;
import dev.agentauth.client.internal.Transport;
import dev.agentauth.model.Bundle;
import dev.agentauth.model.BundlePage;

/**
 * Agent scope bundles: reusable, workspace-scoped groups of scopes for one agent ({@code
 * /v1/agent-scope-bundles}), used as {@code bundle_id} when creating authorizations. Creating,
 * editing and deleting bundles produces no receipt; authorizations already granted from a bundle
 * are not affected by later edits or deletion.
 *
 * <pre>{@code
 * client.bundles().create(BundleParams.builder()
 *     .id("support-bot-default").agentId("support-bot").scope("email.send").build());
 * }</pre>
 *
 * <p>Each operation comes in three forms: with the client's defaults, with per-call {@link
 * RequestOptions}, and {@code ...WithResponse} returning an {@link ApiResponse} with the status,
 * headers and {@code X-Request-Id}. Obtain it from {@code client.bundles()}; the asynchronous twin
 * is {@link BundleServiceAsync}. Thread-safe.
 */
public final class BundleService {
  private final Transport transport;

  BundleService(Transport transport) {
    this.transport = transport;
  }

  /**
   * Creates a bundle ({@code POST /v1/agent-scope-bundles}, 201). A soft-deleted id may be created
   * again.
   *
   * @param params the bundle, with its id
   * @throws IllegalArgumentException if {@code params} has no id
   * @throws ConflictException if an active bundle has this id ({@code bundle_exists})
   */
  public Bundle create(BundleParams params) {
    return create(params, RequestOptions.none());
  }

  /**
   * Creates a bundle ({@code POST /v1/agent-scope-bundles}, 201). A soft-deleted id may be created
   * again.
   *
   * @param params the bundle, with its id
   * @param options per-call timeout, retries, idempotency key, headers
   * @throws IllegalArgumentException if {@code params} has no id
   * @throws ConflictException if an active bundle has this id ({@code bundle_exists})
   */
  public Bundle create(BundleParams params, RequestOptions options) {
    return createWithResponse(params, options).value();
  }

  /**
   * Like {@link #create(BundleParams, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param params the bundle, with its id
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiResponse<Bundle> createWithResponse(BundleParams params, RequestOptions options) {
    return transport.execute(Endpoints.createBundle(params), options);
  }

  /**
   * Returns a bundle ({@code GET /v1/agent-scope-bundles/{id}}).
   *
   * @param bundleId the bundle
   * @throws NotFoundException if there is no such bundle
   */
  public Bundle get(String bundleId) {
    return get(bundleId, RequestOptions.none());
  }

  /**
   * Returns a bundle ({@code GET /v1/agent-scope-bundles/{id}}).
   *
   * @param bundleId the bundle
   * @param options per-call timeout, retries, idempotency key, headers
   * @throws NotFoundException if there is no such bundle
   */
  public Bundle get(String bundleId, RequestOptions options) {
    return getWithResponse(bundleId, options).value();
  }

  /**
   * Like {@link #get(String, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param bundleId the bundle
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiResponse<Bundle> getWithResponse(String bundleId, RequestOptions options) {
    return transport.execute(Endpoints.getBundle(bundleId), options);
  }

  /**
   * Returns one page of active bundles ({@code GET /v1/agent-scope-bundles}). Like {@link
   * #list(ListParams, RequestOptions)}, the first page, with the client's defaults.
   */
  public BundlePage list() {
    return list(ListParams.none(), RequestOptions.none());
  }

  /**
   * Returns one page of active bundles ({@code GET /v1/agent-scope-bundles}).
   *
   * @param params paging
   */
  public BundlePage list(ListParams params) {
    return list(params, RequestOptions.none());
  }

  /**
   * Returns one page of active bundles ({@code GET /v1/agent-scope-bundles}).
   *
   * @param params paging
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public BundlePage list(ListParams params, RequestOptions options) {
    return listWithResponse(params, options).value();
  }

  /**
   * Like {@link #list(ListParams, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param params paging
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiResponse<BundlePage> listWithResponse(ListParams params, RequestOptions options) {
    return transport.execute(Endpoints.listBundles(params), options);
  }

  /**
   * Replaces a bundle's content ({@code PUT /v1/agent-scope-bundles/{id}}).
   *
   * @param bundleId the bundle
   * @param params the new content; its id absent or equal to {@code bundleId}
   * @throws IllegalArgumentException if {@code params} names another id
   * @throws NotFoundException if there is no such active bundle
   */
  public Bundle edit(String bundleId, BundleParams params) {
    return edit(bundleId, params, RequestOptions.none());
  }

  /**
   * Replaces a bundle's content ({@code PUT /v1/agent-scope-bundles/{id}}).
   *
   * @param bundleId the bundle
   * @param params the new content; its id absent or equal to {@code bundleId}
   * @param options per-call timeout, retries, idempotency key, headers
   * @throws IllegalArgumentException if {@code params} names another id
   * @throws NotFoundException if there is no such active bundle
   */
  public Bundle edit(String bundleId, BundleParams params, RequestOptions options) {
    return editWithResponse(bundleId, params, options).value();
  }

  /**
   * Like {@link #edit(String, BundleParams, RequestOptions)}, returning the status, headers and
   * {@code X-Request-Id} with the value.
   *
   * @param bundleId the bundle
   * @param params the new content; its id absent or equal to {@code bundleId}
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiResponse<Bundle> editWithResponse(
      String bundleId, BundleParams params, RequestOptions options) {
    return transport.execute(Endpoints.editBundle(bundleId, params), options);
  }

  /**
   * Soft-deletes a bundle ({@code DELETE /v1/agent-scope-bundles/{id}}); returns it with {@code
   * status} {@code deleted}.
   *
   * @param bundleId the bundle
   * @throws NotFoundException if there is no such active bundle (deleting twice included)
   */
  public Bundle delete(String bundleId) {
    return delete(bundleId, RequestOptions.none());
  }

  /**
   * Soft-deletes a bundle ({@code DELETE /v1/agent-scope-bundles/{id}}); returns it with {@code
   * status} {@code deleted}.
   *
   * @param bundleId the bundle
   * @param options per-call timeout, retries, idempotency key, headers
   * @throws NotFoundException if there is no such active bundle (deleting twice included)
   */
  public Bundle delete(String bundleId, RequestOptions options) {
    return deleteWithResponse(bundleId, options).value();
  }

  /**
   * Like {@link #delete(String, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param bundleId the bundle
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiResponse<Bundle> deleteWithResponse(String bundleId, RequestOptions options) {
    return transport.execute(Endpoints.deleteBundle(bundleId), options);
  }

  /**
   * Returns every element matching {@code params}, across all pages, fetched lazily as iteration
   * proceeds (starting at {@code params}' cursor, if any).
   *
   * @param params filters and paging (the page size applies to each fetch)
   */
  public AutoPagingIterable<Bundle> listAutoPaging(ListParams params) {
    return listAutoPaging(params, RequestOptions.none());
  }

  /**
   * Returns every element matching {@code params}, across all pages; each page is fetched with
   * {@code options}.
   *
   * @param params filters and paging (the page size applies to each fetch)
   * @param options per-call timeout, retries and headers of each page fetch
   */
  public AutoPagingIterable<Bundle> listAutoPaging(ListParams params, RequestOptions options) {
    java.util.Objects.requireNonNull(params, "params");
    return new AutoPagingIterable<>(
        cursor -> {
          var page =
              transport.execute(Endpoints.listBundles(params.withCursor(cursor)), options).value();
          return new Page<>(page.bundles(), page.hasMore(), page.nextCursor());
        },
        params.cursor());
  }
}
