package dev.agentauth.server.http;

import dev.agentauth.model.CreateWebhookRequest;
import dev.agentauth.model.Webhook;
import dev.agentauth.server.service.Caller;
import dev.agentauth.server.service.Outcome;
import dev.agentauth.server.service.ServiceContext;
import dev.agentauth.server.service.ServiceException;
import dev.agentauth.server.service.WebhookOps;
import io.javalin.http.Context;

/**
 * The {@code /v1/webhooks} endpoints. Creating resolves the URL's host before any transaction
 * begins; the answer holds the secret once and is marked not to be stored by caches.
 */
record WebhookHandlers(
    ServiceContext ctx, RequestReader reader, ResponseWriter writer, WebhookOps webhooks) {

  void create(Context c, Caller caller) {
    if (c.header("Idempotency-Key") != null) {
      throw ServiceException.invalid(
          "Idempotency-Key",
          "is not accepted when creating a webhook: a replay would need the secret; after a"
              + " failed attempt, list the webhooks and delete any stray one");
    }
    CreateWebhookRequest r = reader.parse(c, CreateWebhookRequest.class, false).value();
    webhooks.validate(r);
    Webhook created = ctx.store().inTransaction(tx -> webhooks.create(tx, caller, r));
    c.header("Cache-Control", "no-store");
    writer.outcome(c, Outcome.of(201, created));
  }

  void list(Context c, Caller caller) {
    writer.outcome(c, Outcome.of(200, ctx.store().read(tx -> webhooks.list(tx, caller))));
  }

  void delete(Context c, Caller caller) {
    reader.parse(c, V1Handlers.EmptyBody.class, true);
    String id = c.pathParam("id");
    writer.outcome(
        c, Outcome.of(200, ctx.store().inTransaction(tx -> webhooks.delete(tx, caller, id))));
  }

  void deliveries(Context c, Caller caller) {
    String id = c.pathParam("id");
    String cursor = c.queryParam("cursor");
    int limit = RequestReader.limit(c);
    writer.outcome(
        c,
        Outcome.of(
            200, ctx.store().read(tx -> webhooks.deliveries(tx, caller, id, cursor, limit))));
  }
}
