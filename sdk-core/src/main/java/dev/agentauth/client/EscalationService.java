package dev.agentauth.client;

import dev.agentauth.client.internal.Endpoints;
import dev.agentauth.client.internal.Page;
import dev.agentauth.client.internal.Transport;
import dev.agentauth.model.Escalation;
import dev.agentauth.model.EscalationPage;
import dev.agentauth.model.EscalationResolveResponse;

/**
 * Escalations of {@code escalate} results to a third-party approver ({@code /v1/escalations}, Pro+
 * plans). Resolve only after a real approver decided; after an approval, re-check the same
 * authorization, scope and resource: the next result is {@code allow} once.
 *
 * <pre>{@code
 * client.escalations().resolve(escalationId, EscalationResolveParams.approve("approver_7"));
 * }</pre>
 *
 * <p>Each operation comes in three forms: with the client's defaults, with per-call {@link
 * RequestOptions}, and {@code ...WithResponse} returning an {@link ApiResponse} with the status,
 * headers and {@code X-Request-Id}. Obtain it from {@code client.escalations()}; the asynchronous
 * twin is {@link EscalationServiceAsync}. Thread-safe.
 */
public final class EscalationService {
  private final Transport transport;

  EscalationService(Transport transport) {
    this.transport = transport;
  }

  /**
   * Resolves a pending escalation ({@code POST /v1/escalations/{id}/resolve}). Repeating the same
   * resolution answers 200 with {@code receipt} {@code null}.
   *
   * @param escalationId the escalation
   * @param params the approver's decision
   * @throws NotFoundException if there is no such escalation in the workspace
   * @throws ConflictException on a different resolution, a consumed approval or an expired
   *     escalation ({@code escalation_conflict})
   * @throws PlanRequiredException if the plan lacks escalations
   */
  public EscalationResolveResponse resolve(String escalationId, EscalationResolveParams params) {
    return resolve(escalationId, params, RequestOptions.none());
  }

  /**
   * Resolves a pending escalation ({@code POST /v1/escalations/{id}/resolve}). Repeating the same
   * resolution answers 200 with {@code receipt} {@code null}.
   *
   * @param escalationId the escalation
   * @param params the approver's decision
   * @param options per-call timeout, retries, idempotency key, headers
   * @throws NotFoundException if there is no such escalation in the workspace
   * @throws ConflictException on a different resolution, a consumed approval or an expired
   *     escalation ({@code escalation_conflict})
   * @throws PlanRequiredException if the plan lacks escalations
   */
  public EscalationResolveResponse resolve(
      String escalationId, EscalationResolveParams params, RequestOptions options) {
    return resolveWithResponse(escalationId, params, options).value();
  }

  /**
   * Like {@link #resolve(String, EscalationResolveParams, RequestOptions)}, returning the status,
   * headers and {@code X-Request-Id} with the value.
   *
   * @param escalationId the escalation
   * @param params the approver's decision
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiResponse<EscalationResolveResponse> resolveWithResponse(
      String escalationId, EscalationResolveParams params, RequestOptions options) {
    return transport.execute(Endpoints.resolveEscalation(escalationId, params), options);
  }

  /**
   * Returns an escalation ({@code GET /v1/escalations/{id}}).
   *
   * @param escalationId the escalation
   * @throws NotFoundException if there is no such escalation in the workspace
   */
  public Escalation get(String escalationId) {
    return get(escalationId, RequestOptions.none());
  }

  /**
   * Returns an escalation ({@code GET /v1/escalations/{id}}).
   *
   * @param escalationId the escalation
   * @param options per-call timeout, retries, idempotency key, headers
   * @throws NotFoundException if there is no such escalation in the workspace
   */
  public Escalation get(String escalationId, RequestOptions options) {
    return getWithResponse(escalationId, options).value();
  }

  /**
   * Like {@link #get(String, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param escalationId the escalation
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiResponse<Escalation> getWithResponse(String escalationId, RequestOptions options) {
    return transport.execute(Endpoints.getEscalation(escalationId), options);
  }

  /**
   * Returns one page of escalations ({@code GET /v1/escalations}). Like {@link
   * #list(EscalationListParams, RequestOptions)}, the first page, unfiltered, with the client's
   * defaults.
   */
  public EscalationPage list() {
    return list(EscalationListParams.none(), RequestOptions.none());
  }

  /**
   * Returns one page of escalations ({@code GET /v1/escalations}).
   *
   * @param params filter and paging
   */
  public EscalationPage list(EscalationListParams params) {
    return list(params, RequestOptions.none());
  }

  /**
   * Returns one page of escalations ({@code GET /v1/escalations}).
   *
   * @param params filter and paging
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public EscalationPage list(EscalationListParams params, RequestOptions options) {
    return listWithResponse(params, options).value();
  }

  /**
   * Like {@link #list(EscalationListParams, RequestOptions)}, returning the status, headers and
   * {@code X-Request-Id} with the value.
   *
   * @param params filter and paging
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiResponse<EscalationPage> listWithResponse(
      EscalationListParams params, RequestOptions options) {
    return transport.execute(Endpoints.listEscalations(params), options);
  }

  /**
   * Returns every element matching {@code params}, across all pages, fetched lazily as iteration
   * proceeds (starting at {@code params}' cursor, if any).
   *
   * @param params filters and paging (the page size applies to each fetch)
   */
  public AutoPagingIterable<Escalation> listAutoPaging(EscalationListParams params) {
    return listAutoPaging(params, RequestOptions.none());
  }

  /**
   * Returns every element matching {@code params}, across all pages; each page is fetched with
   * {@code options}.
   *
   * @param params filters and paging (the page size applies to each fetch)
   * @param options per-call timeout, retries and headers of each page fetch
   */
  public AutoPagingIterable<Escalation> listAutoPaging(
      EscalationListParams params, RequestOptions options) {
    java.util.Objects.requireNonNull(params, "params");
    return new AutoPagingIterable<>(
        cursor -> {
          var page =
              transport
                  .execute(Endpoints.listEscalations(params.withCursor(cursor)), options)
                  .value();
          return new Page<>(page.escalations(), page.hasMore(), page.nextCursor());
        },
        params.cursor());
  }
}
