package dev.agentauth.client;

import dev.agentauth.client.internal.Endpoints;
import dev.agentauth.client.internal.Futures;
import dev.agentauth.client.internal.Transport;
import dev.agentauth.model.WorkspaceKeys;
import java.util.concurrent.CompletableFuture;

/**
 * The asynchronous twin of {@link WorkspaceService}: the same operations, returning {@link
 * CompletableFuture}s completed on OkHttp's dispatcher threads (keep continuations short or hop to
 * your own executor). Failures complete the future exceptionally with the same {@link
 * AgentAuthException}s the blocking service throws; invalid arguments throw at once. Cancelling a
 * future cancels its HTTP call. Obtain it from {@code client.async().workspaces()}.
 *
 * <p>Thread-safe.
 */
public final class WorkspaceServiceAsync {
  private final Transport transport;

  WorkspaceServiceAsync(Transport transport) {
    this.transport = transport;
  }

  /**
   * Returns the workspace's current and retired public signing keys. Completes exceptionally with
   * {@link NotFoundException} where the blocking service would throw.
   *
   * @param workspaceId the workspace
   */
  public CompletableFuture<WorkspaceKeys> keys(String workspaceId) {
    return keys(workspaceId, RequestOptions.none());
  }

  /**
   * Returns the workspace's current and retired public signing keys. Completes exceptionally with
   * {@link NotFoundException} where the blocking service would throw.
   *
   * @param workspaceId the workspace
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<WorkspaceKeys> keys(String workspaceId, RequestOptions options) {
    return Futures.map(keysWithResponse(workspaceId, options), ApiResponse::value);
  }

  /**
   * Like {@link #keys(String, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param workspaceId the workspace
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiResponse<WorkspaceKeys>> keysWithResponse(
      String workspaceId, RequestOptions options) {
    return transport.executeAsync(Endpoints.workspaceKeys(workspaceId), options);
  }

  /**
   * Completes with the workspace's keys document as JSON text exactly as served, as {@link
   * WorkspaceService#keysJson(String)} returns it. Completes exceptionally with {@link
   * NotFoundException} where the blocking service would throw.
   *
   * @param workspaceId the workspace
   */
  public CompletableFuture<String> keysJson(String workspaceId) {
    return keysJson(workspaceId, RequestOptions.none());
  }

  /**
   * Like {@link #keysJson(String)}, with per-call options.
   *
   * @param workspaceId the workspace
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<String> keysJson(String workspaceId, RequestOptions options) {
    return Futures.map(keysJsonWithResponse(workspaceId, options), ApiResponse::value);
  }

  /**
   * Like {@link #keysJson(String, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param workspaceId the workspace
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiResponse<String>> keysJsonWithResponse(
      String workspaceId, RequestOptions options) {
    return transport.executeAsync(Endpoints.workspaceKeysJson(workspaceId), options);
  }
}
