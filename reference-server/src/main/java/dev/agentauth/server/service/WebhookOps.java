package dev.agentauth.server.service;

import dev.agentauth.model.CreateWebhookRequest;
import dev.agentauth.model.Webhook;
import dev.agentauth.model.WebhookDelivery;
import dev.agentauth.model.WebhookDeliveryPage;
import dev.agentauth.model.WebhookEventType;
import dev.agentauth.model.WebhookPage;
import dev.agentauth.server.store.Page;
import dev.agentauth.server.store.PageRequest;
import dev.agentauth.server.store.Tx;
import dev.agentauth.server.store.WebhookDeliveryRow;
import dev.agentauth.server.store.WebhookRow;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/** Webhooks: create (the secret shown once), list, delete, and a webhook's deliveries. */
public final class WebhookOps {
  /** Webhooks one workspace may hold. */
  public static final int MAX_PER_WORKSPACE = 10;

  /** The longest URL accepted. */
  public static final int MAX_URL = 2000;

  private final ServiceContext ctx;
  private final WebhookTargets targets;

  public WebhookOps(ServiceContext ctx, WebhookTargets targets) {
    this.ctx = ctx;
    this.targets = targets;
  }

  /**
   * Checks a creation request: {@code url} present, at most {@value #MAX_URL} characters and an
   * allowed target (its host resolved now, outside any transaction); {@code events} 1 to 5 distinct
   * known types. 400 naming the field and the rule otherwise.
   */
  public void validate(CreateWebhookRequest r) {
    Validation v = new Validation();
    if (v.required("url", r.url())) {
      if (r.url().length() > MAX_URL) {
        v.add("url", "must be at most " + MAX_URL + " characters, got " + r.url().length());
      } else {
        Optional<WebhookTargets.Refusal> refused = targets.check(r.url());
        refused.ifPresent(why -> v.add("url", why.rule()));
      }
    }
    if (v.required("events", r.events())) {
      if (r.events().isEmpty()) {
        v.add("events", "must name at least one event type of " + WebhookEventType.ALL);
      }
      Set<String> seen = new HashSet<>();
      for (int i = 0; i < r.events().size(); i++) {
        String e = r.events().get(i);
        if (e == null || !WebhookEventType.ALL.contains(e)) {
          v.add(
              "events[" + i + "]",
              "must be one of "
                  + WebhookEventType.ALL
                  + ", got "
                  + (e == null ? "null" : "\"" + Validation.clip(e) + "\""));
        } else if (!seen.add(e)) {
          v.add("events[" + i + "]", "\"" + e + "\" is listed twice");
        }
      }
    }
    v.throwIfInvalid();
  }

  /** Creates a webhook of {@link #validate valid} {@code r}; its secret is in this answer only. */
  public Webhook create(Tx tx, Caller caller, CreateWebhookRequest r) {
    String ws = caller.workspaceId();
    if (tx.webhooks(ws).size() >= MAX_PER_WORKSPACE) {
      throw ServiceException.of(
          ErrorCode.INVALID_REQUEST,
          "a workspace holds at most "
              + MAX_PER_WORKSPACE
              + " webhooks; delete one before adding another");
    }
    String secret = "whsec_" + ctx.token(32);
    WebhookRow row =
        new WebhookRow(
            ws,
            "wh_" + ctx.ulid().toLowerCase(Locale.ROOT),
            r.url(),
            r.events(),
            secret.getBytes(StandardCharsets.UTF_8),
            ctx.now());
    tx.insertWebhook(row);
    return new Webhook(row.webhookId(), row.url(), row.events(), secret, row.createdAt());
  }

  public WebhookPage list(Tx tx, Caller caller) {
    return new WebhookPage(
        tx.webhooks(caller.workspaceId()).stream().map(WebhookOps::view).toList());
  }

  /** Deletes a webhook and its pending deliveries; 404 when unknown. */
  public Webhook delete(Tx tx, Caller caller, String id) {
    WebhookRow row =
        tx.webhook(caller.workspaceId(), id)
            .orElseThrow(() -> ServiceException.notFound("webhook"));
    tx.deleteWebhook(caller.workspaceId(), id);
    return view(row);
  }

  public WebhookDeliveryPage deliveries(Tx tx, Caller caller, String id, String cursor, int limit) {
    String ws = caller.workspaceId();
    tx.webhook(ws, id).orElseThrow(() -> ServiceException.notFound("webhook"));
    String filters = "whd|" + id;
    String after = Cursors.decode(cursor, filters);
    Page<WebhookDeliveryRow> page = tx.listWebhookDeliveries(ws, id, new PageRequest(after, limit));
    List<WebhookDelivery> items = page.items().stream().map(WebhookOps::view).toList();
    return new WebhookDeliveryPage(
        items, page.hasMore(), Cursors.next(filters, page, WebhookDeliveryRow::eventId));
  }

  private static Webhook view(WebhookRow row) {
    return new Webhook(row.webhookId(), row.url(), row.events(), null, row.createdAt());
  }

  private static WebhookDelivery view(WebhookDeliveryRow d) {
    return new WebhookDelivery(
        d.eventId(),
        d.type(),
        d.status(),
        d.attempts(),
        d.eventCreatedAt(),
        d.nextAttemptAt() == null || !"pending".equals(d.status()) ? null : d.nextAttemptAt(),
        d.lastAttemptAt(),
        d.lastStatusCode(),
        d.lastError(),
        d.deliveredAt());
  }
}
