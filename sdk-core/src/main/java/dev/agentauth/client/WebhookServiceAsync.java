package dev.agentauth.client;

import dev.agentauth.client.internal.Endpoints;
import dev.agentauth.client.internal.Futures;
import dev.agentauth.client.internal.Transport;
import dev.agentauth.model.Webhook;
import dev.agentauth.model.WebhookDeliveryPage;
import dev.agentauth.model.WebhookPage;
import java.util.concurrent.CompletableFuture;

/**
 * The asynchronous twin of {@link WebhookService}: the same operations, returning {@link
 * CompletableFuture}s completed on OkHttp's dispatcher threads. Failures complete the future
 * exceptionally with the same {@link AgentAuthException}s; invalid arguments throw at once. Obtain
 * it from {@code client.async().webhooks()}. Thread-safe.
 */
public final class WebhookServiceAsync {
  private final Transport transport;

  WebhookServiceAsync(Transport transport) {
    this.transport = transport;
  }

  /** Creates a webhook ({@code POST /v1/webhooks}); sent once, never retried. */
  public CompletableFuture<Webhook> create(WebhookCreateParams params) {
    return create(params, RequestOptions.none());
  }

  /** {@link #create(WebhookCreateParams)} with per-call options. */
  public CompletableFuture<Webhook> create(WebhookCreateParams params, RequestOptions options) {
    return Futures.map(
        transport.executeAsync(Endpoints.createWebhook(params), options), ApiResponse::value);
  }

  /** Returns every webhook of the workspace ({@code GET /v1/webhooks}). */
  public CompletableFuture<WebhookPage> list() {
    return list(RequestOptions.none());
  }

  /** {@link #list()} with per-call options. */
  public CompletableFuture<WebhookPage> list(RequestOptions options) {
    return Futures.map(
        transport.executeAsync(Endpoints.listWebhooks(), options), ApiResponse::value);
  }

  /** Deletes a webhook ({@code DELETE /v1/webhooks/{id}}). */
  public CompletableFuture<Webhook> delete(String id) {
    return delete(id, RequestOptions.none());
  }

  /** {@link #delete(String)} with per-call options. */
  public CompletableFuture<Webhook> delete(String id, RequestOptions options) {
    return Futures.map(
        transport.executeAsync(Endpoints.deleteWebhook(id), options), ApiResponse::value);
  }

  /** The first page of a webhook's deliveries ({@code GET /v1/webhooks/{id}/deliveries}). */
  public CompletableFuture<WebhookDeliveryPage> deliveries(String id) {
    return deliveries(id, ListParams.none(), RequestOptions.none());
  }

  /** One page of a webhook's deliveries. */
  public CompletableFuture<WebhookDeliveryPage> deliveries(
      String id, ListParams params, RequestOptions options) {
    return Futures.map(
        transport.executeAsync(Endpoints.listWebhookDeliveries(id, params), options),
        ApiResponse::value);
  }
}
