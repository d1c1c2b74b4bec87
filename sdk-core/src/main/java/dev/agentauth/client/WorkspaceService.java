package dev.agentauth.client;

import dev.agentauth.client.internal.Endpoints;
import dev.agentauth.client.internal.Transport;
import dev.agentauth.model.WorkspaceKeys;

/**
 * Public workspace material: the keys document needed to verify receipts offline ({@code GET
 * /v1/workspaces/{id}/keys}). This endpoint is public: the client sends no API key, so a client
 * built without one (for an auditor) can call it.
 *
 * <pre>{@code
 * WorkspaceKeys keys = AgentAuthClient.builder().baseUrl(url).build()
 *     .workspaces().keys("ws_acme");
 * }</pre>
 *
 * <p>Each operation comes in three forms: with the client's defaults, with per-call {@link
 * RequestOptions}, and {@code ...WithResponse} returning an {@link ApiResponse} with the status,
 * headers and {@code X-Request-Id}. Obtain it from {@code client.workspaces()}; the asynchronous
 * twin is {@link WorkspaceServiceAsync}. Thread-safe.
 */
public final class WorkspaceService {
  private final Transport transport;

  WorkspaceService(Transport transport) {
    this.transport = transport;
  }

  /**
   * Returns the workspace's current and retired public signing keys.
   *
   * @param workspaceId the workspace
   * @throws NotFoundException if there is no such workspace
   */
  public WorkspaceKeys keys(String workspaceId) {
    return keys(workspaceId, RequestOptions.none());
  }

  /**
   * Returns the workspace's current and retired public signing keys.
   *
   * @param workspaceId the workspace
   * @param options per-call timeout, retries, idempotency key, headers
   * @throws NotFoundException if there is no such workspace
   */
  public WorkspaceKeys keys(String workspaceId, RequestOptions options) {
    return keysWithResponse(workspaceId, options).value();
  }

  /**
   * Like {@link #keys(String, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param workspaceId the workspace
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiResponse<WorkspaceKeys> keysWithResponse(String workspaceId, RequestOptions options) {
    return transport.execute(Endpoints.workspaceKeys(workspaceId), options);
  }
}
