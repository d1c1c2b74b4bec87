package dev.agentauth.client;

import dev.agentauth.client.internal.Endpoints;
import dev.agentauth.client.internal.Futures;
import dev.agentauth.client.internal.Transport;
import dev.agentauth.model.Escalation;
import dev.agentauth.model.EscalationPage;
import dev.agentauth.model.EscalationResolveResponse;
import java.util.concurrent.CompletableFuture;

/**
 * The asynchronous twin of {@link EscalationService}: the same operations, returning {@link
 * CompletableFuture}s completed on OkHttp's dispatcher threads (keep continuations short or hop to
 * your own executor). Failures complete the future exceptionally with the same {@link
 * AgentAuthException}s the blocking service throws; invalid arguments throw at once. Cancelling a
 * future cancels its HTTP call. Obtain it from {@code client.async().escalations()}.
 *
 * <p>Thread-safe.
 */
public final class EscalationServiceAsync {
  private final Transport transport;

  EscalationServiceAsync(Transport transport) {
    this.transport = transport;
  }

  /**
   * Resolves a pending escalation ({@code POST /v1/escalations/{id}/resolve}). Repeating the same
   * resolution answers 200 with {@code receipt} {@code null}. Completes exceptionally with {@link
   * NotFoundException}, {@link ConflictException}, {@link PlanRequiredException} where the blocking
   * service would throw.
   *
   * @param escalationId the escalation
   * @param params the approver's decision
   */
  public CompletableFuture<EscalationResolveResponse> resolve(
      String escalationId, EscalationResolveParams params) {
    return resolve(escalationId, params, RequestOptions.none());
  }

  /**
   * Resolves a pending escalation ({@code POST /v1/escalations/{id}/resolve}). Repeating the same
   * resolution answers 200 with {@code receipt} {@code null}. Completes exceptionally with {@link
   * NotFoundException}, {@link ConflictException}, {@link PlanRequiredException} where the blocking
   * service would throw.
   *
   * @param escalationId the escalation
   * @param params the approver's decision
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<EscalationResolveResponse> resolve(
      String escalationId, EscalationResolveParams params, RequestOptions options) {
    return Futures.map(resolveWithResponse(escalationId, params, options), ApiResponse::value);
  }

  /**
   * Like {@link #resolve(String, EscalationResolveParams, RequestOptions)}, returning the status,
   * headers and {@code X-Request-Id} with the value.
   *
   * @param escalationId the escalation
   * @param params the approver's decision
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiResponse<EscalationResolveResponse>> resolveWithResponse(
      String escalationId, EscalationResolveParams params, RequestOptions options) {
    return transport.executeAsync(Endpoints.resolveEscalation(escalationId, params), options);
  }

  /**
   * Returns an escalation ({@code GET /v1/escalations/{id}}). Completes exceptionally with {@link
   * NotFoundException} where the blocking service would throw.
   *
   * @param escalationId the escalation
   */
  public CompletableFuture<Escalation> get(String escalationId) {
    return get(escalationId, RequestOptions.none());
  }

  /**
   * Returns an escalation ({@code GET /v1/escalations/{id}}). Completes exceptionally with {@link
   * NotFoundException} where the blocking service would throw.
   *
   * @param escalationId the escalation
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<Escalation> get(String escalationId, RequestOptions options) {
    return Futures.map(getWithResponse(escalationId, options), ApiResponse::value);
  }

  /**
   * Like {@link #get(String, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param escalationId the escalation
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiResponse<Escalation>> getWithResponse(
      String escalationId, RequestOptions options) {
    return transport.executeAsync(Endpoints.getEscalation(escalationId), options);
  }

  /**
   * Returns one page of escalations ({@code GET /v1/escalations}). Like {@link
   * #list(EscalationListParams, RequestOptions)}, the first page, unfiltered, with the client's
   * defaults.
   */
  public CompletableFuture<EscalationPage> list() {
    return list(EscalationListParams.none(), RequestOptions.none());
  }

  /**
   * Returns one page of escalations ({@code GET /v1/escalations}).
   *
   * @param params filter and paging
   */
  public CompletableFuture<EscalationPage> list(EscalationListParams params) {
    return list(params, RequestOptions.none());
  }

  /**
   * Returns one page of escalations ({@code GET /v1/escalations}).
   *
   * @param params filter and paging
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<EscalationPage> list(
      EscalationListParams params, RequestOptions options) {
    return Futures.map(listWithResponse(params, options), ApiResponse::value);
  }

  /**
   * Like {@link #list(EscalationListParams, RequestOptions)}, returning the status, headers and
   * {@code X-Request-Id} with the value.
   *
   * @param params filter and paging
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiResponse<EscalationPage>> listWithResponse(
      EscalationListParams params, RequestOptions options) {
    return transport.executeAsync(Endpoints.listEscalations(params), options);
  }
}
