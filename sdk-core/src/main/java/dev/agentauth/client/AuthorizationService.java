package dev.agentauth.client;

import dev.agentauth.client.internal.Endpoints;
import dev.agentauth.client.internal.Page;
import dev.agentauth.client.internal.Transport;
import dev.agentauth.model.Authorization;
import dev.agentauth.model.AuthorizationPage;
import dev.agentauth.model.RevokeAuthorizationResponse;

/**
 * Authorizations: the permission slips that let an agent act for an end-user ({@code
 * /v1/authorizations}). Create one inline or from a bundle, read, list and revoke it;
 * authorizations are immutable, so to change what an agent may do, revoke and create anew.
 *
 * <pre>{@code
 * Authorization a = client.authorizations().create(AuthorizationCreateParams.inline()
 *     .userId(userId).agentId("support-bot").scope("email.send")
 *     .expiresAt(Instant.now().plus(Duration.ofDays(30))).build());
 * client.authorizations().revoke(a.authorizationId());
 * }</pre>
 *
 * <p>Each operation comes in three forms: with the client's defaults, with per-call {@link
 * RequestOptions}, and {@code ...WithResponse} returning an {@link ApiResponse} with the status,
 * headers and {@code X-Request-Id}. Obtain it from {@code client.authorizations()}; the
 * asynchronous twin is {@link AuthorizationServiceAsync}. Thread-safe.
 */
public final class AuthorizationService {
  private final Transport transport;

  AuthorizationService(Transport transport) {
    this.transport = transport;
  }

  /**
   * Creates an authorization ({@code POST /v1/authorizations}, 201). The answer carries the pending
   * (or, with {@code waitForReceipt}, signed) {@code authorization.create} receipt.
   *
   * @param params the validated authorization
   * @throws BadRequestException if the service rejects the request ({@code invalid_request}, {@code
   *     pii_not_allowed}, {@code bundle_not_found})
   * @throws PlanRequiredException if a Pro+ member is used on a plan without it
   */
  public Authorization create(AuthorizationCreateParams params) {
    return create(params, RequestOptions.none());
  }

  /**
   * Creates an authorization ({@code POST /v1/authorizations}, 201). The answer carries the pending
   * (or, with {@code waitForReceipt}, signed) {@code authorization.create} receipt.
   *
   * @param params the validated authorization
   * @param options per-call timeout, retries, idempotency key, headers
   * @throws BadRequestException if the service rejects the request ({@code invalid_request}, {@code
   *     pii_not_allowed}, {@code bundle_not_found})
   * @throws PlanRequiredException if a Pro+ member is used on a plan without it
   */
  public Authorization create(AuthorizationCreateParams params, RequestOptions options) {
    return createWithResponse(params, options).value();
  }

  /**
   * Like {@link #create(AuthorizationCreateParams, RequestOptions)}, returning the status, headers
   * and {@code X-Request-Id} with the value.
   *
   * @param params the validated authorization
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiResponse<Authorization> createWithResponse(
      AuthorizationCreateParams params, RequestOptions options) {
    return transport.execute(Endpoints.createAuthorization(params), options);
  }

  /**
   * Returns an authorization with its {@code status} ({@code GET /v1/authorizations/{id}}).
   *
   * @param authorizationId the authorization
   * @throws NotFoundException if there is no such authorization in the workspace
   */
  public Authorization get(String authorizationId) {
    return get(authorizationId, RequestOptions.none());
  }

  /**
   * Returns an authorization with its {@code status} ({@code GET /v1/authorizations/{id}}).
   *
   * @param authorizationId the authorization
   * @param options per-call timeout, retries, idempotency key, headers
   * @throws NotFoundException if there is no such authorization in the workspace
   */
  public Authorization get(String authorizationId, RequestOptions options) {
    return getWithResponse(authorizationId, options).value();
  }

  /**
   * Like {@link #get(String, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param authorizationId the authorization
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiResponse<Authorization> getWithResponse(
      String authorizationId, RequestOptions options) {
    return transport.execute(Endpoints.getAuthorization(authorizationId), options);
  }

  /**
   * Returns one page of authorizations ({@code GET /v1/authorizations}). Like {@link
   * #list(AuthorizationListParams, RequestOptions)}, the first page, unfiltered, with the client's
   * defaults.
   */
  public AuthorizationPage list() {
    return list(AuthorizationListParams.builder().build(), RequestOptions.none());
  }

  /**
   * Returns one page of authorizations ({@code GET /v1/authorizations}).
   *
   * @param params filters and paging
   */
  public AuthorizationPage list(AuthorizationListParams params) {
    return list(params, RequestOptions.none());
  }

  /**
   * Returns one page of authorizations ({@code GET /v1/authorizations}).
   *
   * @param params filters and paging
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public AuthorizationPage list(AuthorizationListParams params, RequestOptions options) {
    return listWithResponse(params, options).value();
  }

  /**
   * Like {@link #list(AuthorizationListParams, RequestOptions)}, returning the status, headers and
   * {@code X-Request-Id} with the value.
   *
   * @param params filters and paging
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiResponse<AuthorizationPage> listWithResponse(
      AuthorizationListParams params, RequestOptions options) {
    return transport.execute(Endpoints.listAuthorizations(params), options);
  }

  /**
   * Revokes an authorization ({@code DELETE /v1/authorizations/{id}}); later checks are denied with
   * {@code authorization_revoked}. Retries reuse the idempotency key, so a retried revocation gets
   * the first answer back instead of a 409. Like {@link #revoke(String, AuthorizationRevokeParams,
   * RequestOptions)}, without {@code revoked_by} or notes, with the client's defaults.
   *
   * @param authorizationId the authorization
   * @throws NotFoundException if there is no such authorization in the workspace
   * @throws ConflictException if it was already revoked ({@code already_revoked})
   */
  public RevokeAuthorizationResponse revoke(String authorizationId) {
    return revoke(authorizationId, AuthorizationRevokeParams.none(), RequestOptions.none());
  }

  /**
   * Revokes an authorization ({@code DELETE /v1/authorizations/{id}}); later checks are denied with
   * {@code authorization_revoked}. Retries reuse the idempotency key, so a retried revocation gets
   * the first answer back instead of a 409.
   *
   * @param authorizationId the authorization
   * @param params who revoked and why
   * @throws NotFoundException if there is no such authorization in the workspace
   * @throws ConflictException if it was already revoked ({@code already_revoked})
   */
  public RevokeAuthorizationResponse revoke(
      String authorizationId, AuthorizationRevokeParams params) {
    return revoke(authorizationId, params, RequestOptions.none());
  }

  /**
   * Revokes an authorization ({@code DELETE /v1/authorizations/{id}}); later checks are denied with
   * {@code authorization_revoked}. Retries reuse the idempotency key, so a retried revocation gets
   * the first answer back instead of a 409.
   *
   * @param authorizationId the authorization
   * @param params who revoked and why
   * @param options per-call timeout, retries, idempotency key, headers
   * @throws NotFoundException if there is no such authorization in the workspace
   * @throws ConflictException if it was already revoked ({@code already_revoked})
   */
  public RevokeAuthorizationResponse revoke(
      String authorizationId, AuthorizationRevokeParams params, RequestOptions options) {
    return revokeWithResponse(authorizationId, params, options).value();
  }

  /**
   * Like {@link #revoke(String, AuthorizationRevokeParams, RequestOptions)}, returning the status,
   * headers and {@code X-Request-Id} with the value.
   *
   * @param authorizationId the authorization
   * @param params who revoked and why
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiResponse<RevokeAuthorizationResponse> revokeWithResponse(
      String authorizationId, AuthorizationRevokeParams params, RequestOptions options) {
    return transport.execute(Endpoints.revokeAuthorization(authorizationId, params), options);
  }

  /**
   * Returns every element matching {@code params}, across all pages, fetched lazily as iteration
   * proceeds (starting at {@code params}' cursor, if any).
   *
   * @param params filters and paging (the page size applies to each fetch)
   */
  public AutoPagingIterable<Authorization> listAutoPaging(AuthorizationListParams params) {
    return listAutoPaging(params, RequestOptions.none());
  }

  /**
   * Returns every element matching {@code params}, across all pages; each page is fetched with
   * {@code options}.
   *
   * @param params filters and paging (the page size applies to each fetch)
   * @param options per-call timeout, retries and headers of each page fetch
   */
  public AutoPagingIterable<Authorization> listAutoPaging(
      AuthorizationListParams params, RequestOptions options) {
    java.util.Objects.requireNonNull(params, "params");
    return new AutoPagingIterable<>(
        cursor -> {
          var page =
              transport
                  .execute(Endpoints.listAuthorizations(params.withCursor(cursor)), options)
                  .value();
          return new Page<>(page.authorizations(), page.hasMore(), page.nextCursor());
        },
        params.cursor());
  }
}
