package dev.agentauth.client;

import dev.agentauth.client.internal.Endpoints;
import dev.agentauth.client.internal.Page;
import dev.agentauth.client.internal.Transport;
import dev.agentauth.model.ApiKey;
import dev.agentauth.model.ApiKeyPage;
import java.util.Objects;

/**
 * The workspace's API keys ({@code /v1/api-keys}): create keys with the least role an integration
 * needs, list them, revoke them, and read the calling key's own record. Creating, listing and
 * revoking need a {@code full} key; {@link #current()} works with any role.
 *
 * <pre>{@code
 * ApiKey agentKey = client.apiKeys().create(
 *     ApiKeyCreateParams.of(ApiKeyRole.AGENT).withName("mcp-prod"));
 * // hand agentKey.apiKey() to the tool server; it is shown only now
 * client.apiKeys().revoke(agentKey.keyId());
 * }</pre>
 *
 * <p>Creating a key is the one POST the client sends without an {@code Idempotency-Key} and never
 * retries: its answer holds the secret, which the service does not keep, so it cannot be replayed.
 * After a failure whose outcome is unknown (a timeout), list the keys and revoke any stray one.
 *
 * <p>Each operation comes in three forms: with the client's defaults, with per-call {@link
 * RequestOptions}, and {@code ...WithResponse} returning an {@link ApiResponse} with the status,
 * headers and {@code X-Request-Id}. Obtain it from {@code client.apiKeys()}; the asynchronous twin
 * is {@link ApiKeyServiceAsync}. Thread-safe.
 */
public final class ApiKeyService {
  private final Transport transport;

  ApiKeyService(Transport transport) {
    this.transport = transport;
  }

  /**
   * Creates a key in the calling key's workspace ({@code POST /v1/api-keys}); the answer's {@link
   * ApiKey#apiKey()} is the secret, shown only here.
   *
   * @param params the key's role, and optionally name and expiry
   * @throws ForbiddenException if the calling key is not a {@code full} key
   * @throws BadRequestException if the service refuses a field
   */
  public ApiKey create(ApiKeyCreateParams params) {
    return create(params, RequestOptions.none());
  }

  /**
   * Creates a key in the calling key's workspace ({@code POST /v1/api-keys}).
   *
   * @param params the key's role, and optionally name and expiry
   * @param options per-call timeout and headers (the call is never retried)
   */
  public ApiKey create(ApiKeyCreateParams params, RequestOptions options) {
    return createWithResponse(params, options).value();
  }

  /**
   * Like {@link #create(ApiKeyCreateParams, RequestOptions)}, returning the status, headers and
   * {@code X-Request-Id} with the value.
   *
   * @param params the key's role, and optionally name and expiry
   * @param options per-call timeout and headers (the call is never retried)
   */
  public ApiResponse<ApiKey> createWithResponse(ApiKeyCreateParams params, RequestOptions options) {
    return transport.execute(Endpoints.createApiKey(params), options);
  }

  /**
   * Returns the first page of the workspace's keys, oldest first, without secrets ({@code GET
   * /v1/api-keys}).
   */
  public ApiKeyPage list() {
    return list(ListParams.none(), RequestOptions.none());
  }

  /**
   * Returns one page of the workspace's keys ({@code GET /v1/api-keys}).
   *
   * @param params paging
   */
  public ApiKeyPage list(ListParams params) {
    return list(params, RequestOptions.none());
  }

  /**
   * Returns one page of the workspace's keys ({@code GET /v1/api-keys}).
   *
   * @param params paging
   * @param options per-call timeout, retries, headers
   */
  public ApiKeyPage list(ListParams params, RequestOptions options) {
    return listWithResponse(params, options).value();
  }

  /**
   * Like {@link #list(ListParams, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param params paging
   * @param options per-call timeout, retries, headers
   */
  public ApiResponse<ApiKeyPage> listWithResponse(ListParams params, RequestOptions options) {
    return transport.execute(Endpoints.listApiKeys(params), options);
  }

  /**
   * Returns every key of the workspace, across all pages, fetched lazily as iteration proceeds.
   *
   * @param params paging (the page size applies to each fetch)
   */
  public AutoPagingIterable<ApiKey> listAutoPaging(ListParams params) {
    Objects.requireNonNull(params, "params");
    return new AutoPagingIterable<>(
        cursor -> {
          ApiKeyPage page =
              transport
                  .execute(Endpoints.listApiKeys(params.withCursor(cursor)), RequestOptions.none())
                  .value();
          return new Page<>(page.apiKeys(), page.hasMore(), page.nextCursor());
        },
        params.cursor());
  }

  /**
   * Revokes a key ({@code DELETE /v1/api-keys/{key_id}}) and returns it with {@code revoked_at}
   * set. Every request that starts after this returns is refused with 401 on the instance that
   * answered, and within a second on every other instance. A {@code full} key may revoke itself.
   *
   * @param keyId the key's id ({@link ApiKey#keyId()}, not the secret)
   * @throws NotFoundException if the workspace has no such key
   * @throws ConflictException with code {@code already_revoked} if it was revoked before
   */
  public ApiKey revoke(String keyId) {
    return revoke(keyId, RequestOptions.none());
  }

  /**
   * Revokes a key ({@code DELETE /v1/api-keys/{key_id}}).
   *
   * @param keyId the key's id
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiKey revoke(String keyId, RequestOptions options) {
    return revokeWithResponse(keyId, options).value();
  }

  /**
   * Like {@link #revoke(String, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param keyId the key's id
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiResponse<ApiKey> revokeWithResponse(String keyId, RequestOptions options) {
    return transport.execute(Endpoints.revokeApiKey(keyId), options);
  }

  /**
   * Returns the calling key's own record, without the secret, with its workspace ({@code GET
   * /v1/api-keys/current}); works with any role.
   */
  public ApiKey current() {
    return current(RequestOptions.none());
  }

  /**
   * Returns the calling key's own record ({@code GET /v1/api-keys/current}).
   *
   * @param options per-call timeout, retries, headers
   */
  public ApiKey current(RequestOptions options) {
    return currentWithResponse(options).value();
  }

  /**
   * Like {@link #current(RequestOptions)}, returning the status, headers and {@code X-Request-Id}
   * with the value.
   *
   * @param options per-call timeout, retries, headers
   */
  public ApiResponse<ApiKey> currentWithResponse(RequestOptions options) {
    return transport.execute(Endpoints.currentApiKey(), options);
  }
}
