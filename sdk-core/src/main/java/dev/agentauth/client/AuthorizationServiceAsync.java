package dev.agentauth.client;

import dev.agentauth.client.internal.Endpoints;
import dev.agentauth.client.internal.Futures;
import dev.agentauth.client.internal.Transport;
import dev.agentauth.model.Authorization;
import dev.agentauth.model.AuthorizationPage;
import dev.agentauth.model.RevokeAuthorizationResponse;
import java.util.concurrent.CompletableFuture;

/**
 * The asynchronous twin of {@link AuthorizationService}: the same operations, returning {@link
 * CompletableFuture}s completed on OkHttp's dispatcher threads (keep continuations short or hop to
 * your own executor). Failures complete the future exceptionally with the same {@link
 * AgentAuthException}s the blocking service throws; invalid arguments throw at once. Cancelling a
 * future cancels its HTTP call. Obtain it from {@code client.async().authorizations()}.
 *
 * <p>Thread-safe.
 */
public final class AuthorizationServiceAsync {
  private final Transport transport;

  AuthorizationServiceAsync(Transport transport) {
    this.transport = transport;
  }

  /**
   * Creates an authorization ({@code POST /v1/authorizations}, 201). The answer carries the pending
   * (or, with {@code waitForReceipt}, signed) {@code authorization.create} receipt. Completes
   * exceptionally with {@link BadRequestException}, {@link PlanRequiredException} where the
   * blocking service would throw.
   *
   * @param params the validated authorization
   */
  public CompletableFuture<Authorization> create(AuthorizationCreateParams params) {
    return create(params, RequestOptions.none());
  }

  /**
   * Creates an authorization ({@code POST /v1/authorizations}, 201). The answer carries the pending
   * (or, with {@code waitForReceipt}, signed) {@code authorization.create} receipt. Completes
   * exceptionally with {@link BadRequestException}, {@link PlanRequiredException} where the
   * blocking service would throw.
   *
   * @param params the validated authorization
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<Authorization> create(
      AuthorizationCreateParams params, RequestOptions options) {
    return Futures.map(createWithResponse(params, options), ApiResponse::value);
  }

  /**
   * Like {@link #create(AuthorizationCreateParams, RequestOptions)}, returning the status, headers
   * and {@code X-Request-Id} with the value.
   *
   * @param params the validated authorization
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiResponse<Authorization>> createWithResponse(
      AuthorizationCreateParams params, RequestOptions options) {
    return transport.executeAsync(Endpoints.createAuthorization(params), options);
  }

  /**
   * Returns an authorization with its {@code status} ({@code GET /v1/authorizations/{id}}).
   * Completes exceptionally with {@link NotFoundException} where the blocking service would throw.
   *
   * @param authorizationId the authorization
   */
  public CompletableFuture<Authorization> get(String authorizationId) {
    return get(authorizationId, RequestOptions.none());
  }

  /**
   * Returns an authorization with its {@code status} ({@code GET /v1/authorizations/{id}}).
   * Completes exceptionally with {@link NotFoundException} where the blocking service would throw.
   *
   * @param authorizationId the authorization
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<Authorization> get(String authorizationId, RequestOptions options) {
    return Futures.map(getWithResponse(authorizationId, options), ApiResponse::value);
  }

  /**
   * Like {@link #get(String, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param authorizationId the authorization
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiResponse<Authorization>> getWithResponse(
      String authorizationId, RequestOptions options) {
    return transport.executeAsync(Endpoints.getAuthorization(authorizationId), options);
  }

  /**
   * Returns one page of authorizations ({@code GET /v1/authorizations}). Like {@link
   * #list(AuthorizationListParams, RequestOptions)}, the first page, unfiltered, with the client's
   * defaults.
   */
  public CompletableFuture<AuthorizationPage> list() {
    return list(AuthorizationListParams.builder().build(), RequestOptions.none());
  }

  /**
   * Returns one page of authorizations ({@code GET /v1/authorizations}).
   *
   * @param params filters and paging
   */
  public CompletableFuture<AuthorizationPage> list(AuthorizationListParams params) {
    return list(params, RequestOptions.none());
  }

  /**
   * Returns one page of authorizations ({@code GET /v1/authorizations}).
   *
   * @param params filters and paging
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<AuthorizationPage> list(
      AuthorizationListParams params, RequestOptions options) {
    return Futures.map(listWithResponse(params, options), ApiResponse::value);
  }

  /**
   * Like {@link #list(AuthorizationListParams, RequestOptions)}, returning the status, headers and
   * {@code X-Request-Id} with the value.
   *
   * @param params filters and paging
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiResponse<AuthorizationPage>> listWithResponse(
      AuthorizationListParams params, RequestOptions options) {
    return transport.executeAsync(Endpoints.listAuthorizations(params), options);
  }

  /**
   * Revokes an authorization ({@code DELETE /v1/authorizations/{id}}); later checks are denied with
   * {@code authorization_revoked}. Retries reuse the idempotency key, so a retried revocation gets
   * the first answer back instead of a 409. Completes exceptionally with {@link NotFoundException},
   * {@link ConflictException} where the blocking service would throw. Like {@link #revoke(String,
   * AuthorizationRevokeParams, RequestOptions)}, without {@code revoked_by} or notes, with the
   * client's defaults.
   *
   * @param authorizationId the authorization
   */
  public CompletableFuture<RevokeAuthorizationResponse> revoke(String authorizationId) {
    return revoke(authorizationId, AuthorizationRevokeParams.none(), RequestOptions.none());
  }

  /**
   * Revokes an authorization ({@code DELETE /v1/authorizations/{id}}); later checks are denied with
   * {@code authorization_revoked}. Retries reuse the idempotency key, so a retried revocation gets
   * the first answer back instead of a 409. Completes exceptionally with {@link NotFoundException},
   * {@link ConflictException} where the blocking service would throw.
   *
   * @param authorizationId the authorization
   * @param params who revoked and why
   */
  public CompletableFuture<RevokeAuthorizationResponse> revoke(
      String authorizationId, AuthorizationRevokeParams params) {
    return revoke(authorizationId, params, RequestOptions.none());
  }

  /**
   * Revokes an authorization ({@code DELETE /v1/authorizations/{id}}); later checks are denied with
   * {@code authorization_revoked}. Retries reuse the idempotency key, so a retried revocation gets
   * the first answer back instead of a 409. Completes exceptionally with {@link NotFoundException},
   * {@link ConflictException} where the blocking service would throw.
   *
   * @param authorizationId the authorization
   * @param params who revoked and why
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<RevokeAuthorizationResponse> revoke(
      String authorizationId, AuthorizationRevokeParams params, RequestOptions options) {
    return Futures.map(revokeWithResponse(authorizationId, params, options), ApiResponse::value);
  }

  /**
   * Like {@link #revoke(String, AuthorizationRevokeParams, RequestOptions)}, returning the status,
   * headers and {@code X-Request-Id} with the value.
   *
   * @param authorizationId the authorization
   * @param params who revoked and why
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiResponse<RevokeAuthorizationResponse>> revokeWithResponse(
      String authorizationId, AuthorizationRevokeParams params, RequestOptions options) {
    return transport.executeAsync(Endpoints.revokeAuthorization(authorizationId, params), options);
  }
}
