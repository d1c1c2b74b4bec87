package dev.agentauth.server.store;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The webhook tables of the {@link MemoryStore}: its transaction type extends this, so every write
 * here records its inverse on the store's undo log and a transaction that throws leaves no trace.
 * Runs only under the store's lock.
 */
abstract class MemoryWebhooks implements WebhookTx {
  private final Deque<Runnable> undo;

  /** Webhooks by workspace, then id. */
  private final Map<String, TreeMap<String, WebhookRow>> webhooks = new TreeMap<>();

  /** Deliveries by webhook id, then event id. */
  private final Map<String, TreeMap<String, WebhookDeliveryRow>> deliveries = new TreeMap<>();

  /** Leases: webhook id + event id → owner and end. */
  private final Map<String, Lease> leases = new TreeMap<>();

  private record Lease(String owner, Instant until) {}

  MemoryWebhooks(Deque<Runnable> undo) {
    this.undo = undo;
  }

  private <K, V> void put(Map<K, V> map, K k, V value) {
    boolean had = map.containsKey(k);
    V previous = map.put(k, value);
    undo.push(
        () -> {
          if (had) {
            map.put(k, previous);
          } else {
            map.remove(k);
          }
        });
  }

  private <K, V> void remove(Map<K, V> map, K k) {
    if (map.containsKey(k)) {
      V previous = map.remove(k);
      undo.push(() -> map.put(k, previous));
    }
  }

  private static String leaseKey(String webhookId, String eventId) {
    return webhookId + '\u0000' + eventId;
  }

  @Override
  public void insertWebhook(WebhookRow row) {
    TreeMap<String, WebhookRow> t =
        webhooks.computeIfAbsent(row.workspaceId(), w -> new TreeMap<>());
    put(t, row.webhookId(), row);
    put(deliveries, row.webhookId(), new TreeMap<>());
  }

  @Override
  public List<WebhookRow> webhooks(String workspaceId) {
    TreeMap<String, WebhookRow> t = webhooks.get(workspaceId);
    return t == null ? List.of() : List.copyOf(t.values());
  }

  @Override
  public Optional<WebhookRow> webhook(String workspaceId, String webhookId) {
    TreeMap<String, WebhookRow> t = webhooks.get(workspaceId);
    return Optional.ofNullable(t == null ? null : t.get(webhookId));
  }

  @Override
  public boolean deleteWebhook(String workspaceId, String webhookId) {
    TreeMap<String, WebhookRow> t = webhooks.get(workspaceId);
    if (t == null || !t.containsKey(webhookId)) {
      return false;
    }
    remove(t, webhookId);
    remove(deliveries, webhookId);
    return true;
  }

  @Override
  public Page<WebhookDeliveryRow> listWebhookDeliveries(
      String workspaceId, String webhookId, PageRequest page) {
    if (webhook(workspaceId, webhookId).isEmpty()) {
      return new Page<>(List.of(), false);
    }
    TreeMap<String, WebhookDeliveryRow> t = deliveries.getOrDefault(webhookId, new TreeMap<>());
    var newestFirst =
        page.after() == null ? t.descendingMap() : t.headMap(page.after(), false).descendingMap();
    List<WebhookDeliveryRow> items = new ArrayList<>();
    Iterator<WebhookDeliveryRow> it = newestFirst.values().iterator();
    while (it.hasNext()) {
      WebhookDeliveryRow d = it.next();
      if (items.size() == page.limit()) {
        return new Page<>(items, true);
      }
      items.add(d);
    }
    return new Page<>(items, false);
  }

  @Override
  public void enqueueWebhookEvent(WebhookEvent event) {
    for (WebhookRow w : webhooks(event.workspaceId())) {
      if (w.subscribes(event.type())) {
        put(
            deliveries.get(w.webhookId()),
            event.eventId(),
            WebhookDeliveryRow.of(event, w.webhookId()));
      }
    }
  }

  @Override
  public void rescheduleWebhookEvents(
      String workspaceId, String authorizationId, String type, Instant at) {
    for (WebhookRow w : webhooks(workspaceId)) {
      TreeMap<String, WebhookDeliveryRow> t = deliveries.get(w.webhookId());
      for (WebhookDeliveryRow d : List.copyOf(t.values())) {
        if ("pending".equals(d.status())
            && type.equals(d.type())
            && authorizationId.equals(d.authorizationId())
            && d.nextAttemptAt().isAfter(at)) {
          put(t, d.eventId(), d.dueAt(at));
        }
      }
    }
  }

  @Override
  public List<Claimed> claimWebhookDeliveries(
      Instant dueBy,
      Instant leaseNow,
      Instant leaseUntil,
      String owner,
      Set<String> skipWebhooks,
      int limit) {
    List<Claimed> due = new ArrayList<>();
    for (TreeMap<String, WebhookRow> ws : webhooks.values()) {
      for (WebhookRow w : ws.values()) {
        if (skipWebhooks.contains(w.webhookId())) {
          continue;
        }
        for (WebhookDeliveryRow d : deliveries.get(w.webhookId()).values()) {
          Lease l = leases.get(leaseKey(d.webhookId(), d.eventId()));
          if ("pending".equals(d.status())
              && !d.nextAttemptAt().isAfter(dueBy)
              && (l == null || !l.until().isAfter(leaseNow))) {
            due.add(new Claimed(d, w.url(), w.secret()));
          }
        }
      }
    }
    due.sort(Comparator.comparing((Claimed c) -> c.delivery().nextAttemptAt()));
    List<Claimed> claimed = List.copyOf(due.subList(0, Math.min(limit, due.size())));
    for (Claimed c : claimed) {
      put(
          leases,
          leaseKey(c.delivery().webhookId(), c.delivery().eventId()),
          new Lease(owner, leaseUntil));
    }
    return claimed;
  }

  @Override
  public boolean recordWebhookAttempt(Attempt a) {
    String k = leaseKey(a.webhookId(), a.eventId());
    Lease l = leases.get(k);
    TreeMap<String, WebhookDeliveryRow> t = deliveries.get(a.webhookId());
    if (l == null || !l.owner().equals(a.owner()) || t == null || !t.containsKey(a.eventId())) {
      return false;
    }
    remove(leases, k);
    put(t, a.eventId(), t.get(a.eventId()).after(a));
    return true;
  }

  @Override
  public int releaseWebhookLeases() {
    int n = leases.size();
    for (String k : List.copyOf(leases.keySet())) {
      remove(leases, k);
    }
    return n;
  }
}
