package dev.agentauth.client;

import dev.agentauth.client.internal.Endpoints;
import dev.agentauth.client.internal.Transport;
import dev.agentauth.model.Webhook;
import dev.agentauth.model.WebhookDeliveryPage;
import dev.agentauth.model.WebhookPage;

/**
 * The workspace's webhooks ({@code /v1/webhooks}): where the service sends events that need someone
 * (an escalation waiting for an approver, a confirmation asked for), signed with a secret shown
 * once. Needs a {@code full} or {@code app} key.
 *
 * <pre>{@code
 * Webhook hook = client.webhooks().create(
 *     WebhookCreateParams.of("https://hooks.example.com/agentauth",
 *         WebhookEventType.ESCALATION_CREATED));
 * store(hook.secret()); // the receiver checks each request with Webhooks.verify
 * client.webhooks().deliveries(hook.id()).deliveries(); // how the sending went
 * }</pre>
 *
 * <p>Creating a webhook is sent once, never retried and without an {@code Idempotency-Key}: its
 * answer holds the secret. After a failure whose outcome is unknown, list the webhooks and delete
 * any stray one. Each operation also comes with per-call {@link RequestOptions} and as {@code
 * ...WithResponse}; the asynchronous twin is {@link WebhookServiceAsync}. Thread-safe.
 */
public final class WebhookService {
  private final Transport transport;

  WebhookService(Transport transport) {
    this.transport = transport;
  }

  /**
   * Creates a webhook ({@code POST /v1/webhooks}); the answer's {@link Webhook#secret()} is shown
   * only here.
   *
   * @throws BadRequestException if the URL is refused (not https://, or it resolves to a loopback,
   *     private, link-local or other non-public address) or an event type is unknown
   * @throws ForbiddenException if the calling key is neither {@code full} nor {@code app}
   */
  public Webhook create(WebhookCreateParams params) {
    return create(params, RequestOptions.none());
  }

  /** {@link #create(WebhookCreateParams)} with per-call options (the call is never retried). */
  public Webhook create(WebhookCreateParams params, RequestOptions options) {
    return createWithResponse(params, options).value();
  }

  /** Like {@link #create(WebhookCreateParams, RequestOptions)}, with the status and headers. */
  public ApiResponse<Webhook> createWithResponse(
      WebhookCreateParams params, RequestOptions options) {
    return transport.execute(Endpoints.createWebhook(params), options);
  }

  /** Returns every webhook of the workspace, oldest first, without secrets. */
  public WebhookPage list() {
    return list(RequestOptions.none());
  }

  /** {@link #list()} with per-call options. */
  public WebhookPage list(RequestOptions options) {
    return listWithResponse(options).value();
  }

  /** Like {@link #list(RequestOptions)}, with the status and headers. */
  public ApiResponse<WebhookPage> listWithResponse(RequestOptions options) {
    return transport.execute(Endpoints.listWebhooks(), options);
  }

  /**
   * Deletes a webhook and its pending deliveries ({@code DELETE /v1/webhooks/{id}}), returning it.
   *
   * @throws NotFoundException if the workspace has no such webhook
   */
  public Webhook delete(String id) {
    return delete(id, RequestOptions.none());
  }

  /** {@link #delete(String)} with per-call options. */
  public Webhook delete(String id, RequestOptions options) {
    return deleteWithResponse(id, options).value();
  }

  /** Like {@link #delete(String, RequestOptions)}, with the status and headers. */
  public ApiResponse<Webhook> deleteWithResponse(String id, RequestOptions options) {
    return transport.execute(Endpoints.deleteWebhook(id), options);
  }

  /**
   * Returns the first page of a webhook's deliveries, newest event first ({@code GET
   * /v1/webhooks/{id}/deliveries}): each event's status, attempts and last result.
   *
   * @throws NotFoundException if the workspace has no such webhook
   */
  public WebhookDeliveryPage deliveries(String id) {
    return deliveries(id, ListParams.none(), RequestOptions.none());
  }

  /** One page of a webhook's deliveries. */
  public WebhookDeliveryPage deliveries(String id, ListParams params, RequestOptions options) {
    return deliveriesWithResponse(id, params, options).value();
  }

  /** Like {@link #deliveries(String, ListParams, RequestOptions)}, with the status and headers. */
  public ApiResponse<WebhookDeliveryPage> deliveriesWithResponse(
      String id, ListParams params, RequestOptions options) {
    return transport.execute(Endpoints.listWebhookDeliveries(id, params), options);
  }
}
