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
 * <p>To build a verifier, take the document's JSON text as served, {@link #keysJson(String)}, and
 * give it to {@code sdk-verifier}'s {@code ReceiptVerifier.builder().keysJson(...)}; the typed
 * {@link WorkspaceKeys} is for reading.
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

  /**
   * Returns the workspace's keys document as JSON text exactly as the service served it (the {@code
   * GET /v1/workspaces/{id}/keys} body), after checking that it reads as {@link WorkspaceKeys}:
   * what {@code ReceiptVerifier.builder().keysJson(...)} takes, and what an auditor stores beside
   * exported receipts.
   *
   * @param workspaceId the workspace
   * @return the keys document's JSON text
   * @throws NotFoundException if there is no such workspace
   */
  public String keysJson(String workspaceId) {
    return keysJson(workspaceId, RequestOptions.none());
  }

  /**
   * Like {@link #keysJson(String)}, with per-call options.
   *
   * @param workspaceId the workspace
   * @param options per-call timeout, retries, idempotency key, headers
   * @return the keys document's JSON text
   * @throws NotFoundException if there is no such workspace
   */
  public String keysJson(String workspaceId, RequestOptions options) {
    return keysJsonWithResponse(workspaceId, options).value();
  }

  /**
   * Like {@link #keysJson(String, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param workspaceId the workspace
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiResponse<String> keysJsonWithResponse(String workspaceId, RequestOptions options) {
    return transport.execute(Endpoints.workspaceKeysJson(workspaceId), options);
  }
}
