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
 *
 * <p>Deliveries are held by webhook and event id (the delivery log's order), and indexed by their
 * event's time twice: the pending ones (what the worker leases and the metrics count) and the
 * finished ones (what retention deletes, oldest first), so that neither a poll nor a prune reads
 * the whole log. Every delivery counts against the store's memory bound ({@link #deliveryAdded}).
 */
abstract class MemoryWebhooks implements WebhookTx {
  private final Deque<Runnable> undo;

  /** Webhooks by workspace, then id. */
  private final Map<String, TreeMap<String, WebhookRow>> webhooks = new TreeMap<>();

  /** Deliveries by webhook id, then event id. */
  private final Map<String, TreeMap<String, WebhookDeliveryRow>> deliveries = new TreeMap<>();

  /** The pending deliveries by their event's time. */
  private final TreeMap<ByEvent, WebhookDeliveryRow> pending = new TreeMap<>();

  /** The finished (delivered, failed, cancelled) deliveries by their event's time. */
  private final TreeMap<ByEvent, WebhookDeliveryRow> finished = new TreeMap<>();

  /** Leases: webhook id + event id → owner and end. */
  private final Map<String, Lease> leases = new TreeMap<>();

  private record Lease(String owner, Instant until) {}

  /** A delivery's place in an index: its event's time, then webhook and event id. */
  private record ByEvent(Instant at, String webhookId, String eventId)
      implements Comparable<ByEvent> {
    private static final Comparator<ByEvent> ORDER =
        Comparator.comparing(ByEvent::at)
            .thenComparing(ByEvent::webhookId)
            .thenComparing(ByEvent::eventId);

    static ByEvent of(WebhookDeliveryRow d) {
      return new ByEvent(d.eventCreatedAt(), d.webhookId(), d.eventId());
    }

    /** Before every delivery whose event happened at {@code at} or later. */
    static ByEvent first(Instant at) {
      return new ByEvent(at, "", "");
    }

    @Override
    public int compareTo(ByEvent o) {
      return ORDER.compare(this, o);
    }
  }

  MemoryWebhooks(Deque<Runnable> undo) {
    this.undo = undo;
  }

  /** After commit: a new delivery of {@code size} estimated bytes joins the memory bound. */
  abstract void deliveryAdded(WebhookDeliveryRow d, long size);

  /** After commit: the deliveries held changed by {@code delta} estimated bytes. */
  abstract void deliveriesResized(long delta);

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

  private TreeMap<ByEvent, WebhookDeliveryRow> index(WebhookDeliveryRow d) {
    return "pending".equals(d.status()) ? pending : finished;
  }

  /**
   * Writes {@code next} in place of {@code old} (null: a new delivery), or removes {@code old}
   * ({@code next} null), keeping the indexes and the memory bound in step.
   */
  private void write(WebhookDeliveryRow old, WebhookDeliveryRow next) {
    WebhookDeliveryRow any = old != null ? old : next;
    TreeMap<String, WebhookDeliveryRow> t = deliveries.get(any.webhookId());
    if (old != null) {
      remove(index(old), ByEvent.of(old));
    }
    if (next != null) {
      put(t, next.eventId(), next);
      put(index(next), ByEvent.of(next), next);
    } else {
      remove(t, old.eventId());
      remove(leases, leaseKey(old.webhookId(), old.eventId()));
    }
    if (old == null) {
      deliveryAdded(next, MemoryBudget.size(next));
    } else {
      deliveriesResized((next == null ? 0 : MemoryBudget.size(next)) - MemoryBudget.size(old));
    }
  }

  /**
   * Evicts a delivery past the memory bound, after a commit (so with no undo); returns the bytes it
   * freed, 0 when it was gone already. A pending delivery evicted is never sent.
   */
  long evictDelivery(String webhookId, String eventId) {
    TreeMap<String, WebhookDeliveryRow> t = deliveries.get(webhookId);
    WebhookDeliveryRow d = t == null ? null : t.remove(eventId);
    if (d == null) {
      return 0;
    }
    index(d).remove(ByEvent.of(d));
    leases.remove(leaseKey(webhookId, eventId));
    return MemoryBudget.size(d);
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
    for (WebhookDeliveryRow d : List.copyOf(deliveries.get(webhookId).values())) {
      write(d, null);
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
        write(null, WebhookDeliveryRow.of(event, w.webhookId()));
      }
    }
  }

  @Override
  public void rescheduleWebhookEvents(
      String workspaceId, String authorizationId, String type, Instant at) {
    for (WebhookDeliveryRow d : List.copyOf(pending.values())) {
      if (workspaceId.equals(d.workspaceId())
          && type.equals(d.type())
          && authorizationId.equals(d.authorizationId())
          && d.nextAttemptAt().isAfter(at)) {
        write(d, d.dueAt(at));
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
    for (WebhookDeliveryRow d : pending.values()) {
      if (skipWebhooks.contains(d.webhookId()) || d.nextAttemptAt().isAfter(dueBy)) {
        continue;
      }
      Lease l = leases.get(leaseKey(d.webhookId(), d.eventId()));
      Optional<WebhookRow> w = webhook(d.workspaceId(), d.webhookId());
      if ((l == null || !l.until().isAfter(leaseNow)) && w.isPresent()) {
        due.add(new Claimed(d, w.get().url(), w.get().secret()));
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
    WebhookDeliveryRow old = t.get(a.eventId());
    write(old, old.after(a));
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

  @Override
  public int pruneWebhookDeliveries(Instant eventBefore, int limit) {
    List<WebhookDeliveryRow> old = new ArrayList<>();
    for (WebhookDeliveryRow d : finished.headMap(ByEvent.first(eventBefore), false).values()) {
      if (old.size() == limit) {
        break;
      }
      old.add(d);
    }
    for (WebhookDeliveryRow d : old) {
      write(d, null);
    }
    return old.size();
  }

  @Override
  public Outbox webhookOutbox(Instant now, long atMost) {
    long n = 0;
    Instant oldest = null;
    for (ByEvent k : pending.keySet()) {
      if (n >= atMost || k.at().isAfter(now)) {
        break;
      }
      if (oldest == null) {
        oldest = k.at();
      }
      n++;
    }
    return new Outbox(n, oldest);
  }
}
