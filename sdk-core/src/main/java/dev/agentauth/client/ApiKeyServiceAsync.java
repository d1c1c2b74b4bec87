package dev.agentauth.client;

import dev.agentauth.client.internal.Endpoints;
import dev.agentauth.client.internal.Futures;
import dev.agentauth.client.internal.Transport;
import dev.agentauth.model.ApiKey;
import dev.agentauth.model.ApiKeyPage;
import java.util.concurrent.CompletableFuture;

/**
 * The asynchronous twin of {@link ApiKeyService}: the same operations, returning {@link
 * CompletableFuture}s completed on OkHttp's dispatcher threads (keep continuations short or hop to
 * your own executor). Failures complete the future exceptionally with the same {@link
 * AgentAuthException}s the blocking service throws; invalid arguments throw at once. Cancelling a
 * future cancels its HTTP call. Obtain it from {@code client.async().apiKeys()}.
 *
 * <p>Thread-safe.
 */
public final class ApiKeyServiceAsync {
  private final Transport transport;

  ApiKeyServiceAsync(Transport transport) {
    this.transport = transport;
  }

  /**
   * Creates a key in the calling key's workspace ({@code POST /v1/api-keys}); sent once, never
   * retried.
   *
   * @param params the key's role, and optionally name and expiry
   */
  public CompletableFuture<ApiKey> create(ApiKeyCreateParams params) {
    return create(params, RequestOptions.none());
  }

  /**
   * Creates a key in the calling key's workspace ({@code POST /v1/api-keys}).
   *
   * @param params the key's role, and optionally name and expiry
   * @param options per-call timeout and headers (the call is never retried)
   */
  public CompletableFuture<ApiKey> create(ApiKeyCreateParams params, RequestOptions options) {
    return Futures.map(createWithResponse(params, options), ApiResponse::value);
  }

  /**
   * Like {@link #create(ApiKeyCreateParams, RequestOptions)}, returning the status, headers and
   * {@code X-Request-Id} with the value.
   *
   * @param params the key's role, and optionally name and expiry
   * @param options per-call timeout and headers (the call is never retried)
   */
  public CompletableFuture<ApiResponse<ApiKey>> createWithResponse(
      ApiKeyCreateParams params, RequestOptions options) {
    return transport.executeAsync(Endpoints.createApiKey(params), options);
  }

  /** Returns the first page of the workspace's keys ({@code GET /v1/api-keys}). */
  public CompletableFuture<ApiKeyPage> list() {
    return list(ListParams.none(), RequestOptions.none());
  }

  /**
   * Returns one page of the workspace's keys ({@code GET /v1/api-keys}).
   *
   * @param params paging
   * @param options per-call timeout, retries, headers
   */
  public CompletableFuture<ApiKeyPage> list(ListParams params, RequestOptions options) {
    return Futures.map(
        transport.executeAsync(Endpoints.listApiKeys(params), options), ApiResponse::value);
  }

  /**
   * Revokes a key ({@code DELETE /v1/api-keys/{key_id}}) and returns it with {@code revoked_at}
   * set.
   *
   * @param keyId the key's id ({@link ApiKey#keyId()}, not the secret)
   */
  public CompletableFuture<ApiKey> revoke(String keyId) {
    return revoke(keyId, RequestOptions.none());
  }

  /**
   * Revokes a key ({@code DELETE /v1/api-keys/{key_id}}).
   *
   * @param keyId the key's id
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiKey> revoke(String keyId, RequestOptions options) {
    return Futures.map(
        transport.executeAsync(Endpoints.revokeApiKey(keyId), options), ApiResponse::value);
  }

  /** Returns the calling key's own record ({@code GET /v1/api-keys/current}); any role. */
  public CompletableFuture<ApiKey> current() {
    return Futures.map(
        transport.executeAsync(Endpoints.currentApiKey(), RequestOptions.none()),
        ApiResponse::value);
  }
}
