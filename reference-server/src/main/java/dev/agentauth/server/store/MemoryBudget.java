package dev.agentauth.server.store;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What bounds a {@link MemoryStore}: the estimated heap of the records a check can create —
 * receipts, idempotency records, confirmation nonces, escalations and webhook deliveries — kept in
 * the order they were committed, the oldest evicted first once the total passes {@link #maxBytes}.
 * Everything else in the store (workspaces, keys, authorizations, bundles, tombstones, counters) is
 * created by keys that manage the workspace, not by checks, and is not evicted.
 *
 * <p>An evicted record is gone: a receipt can no longer be fetched (nor signed, if it was still
 * pending), a retried request whose idempotency record was evicted runs again, an evicted nonce or
 * escalation answers as unknown. So the memory store is for tests and demos; a WARN says so, at
 * most once a minute while evictions go on. Used under the store's lock only.
 */
final class MemoryBudget {
  private static final Logger log = LoggerFactory.getLogger(MemoryStore.class);

  /** How often, at most, evictions are logged. */
  static final Duration WARN_INTERVAL = Duration.ofMinutes(1);

  /** The kinds of evictable records. */
  enum Kind {
    RECEIPT,
    IDEMPOTENCY,
    NONCE,
    ESCALATION,
    DELIVERY
  }

  /**
   * One committed record: its kind, its map key (a delivery's event id), and its workspace
   * (receipts, escalations) or webhook (deliveries).
   */
  record Entry(Kind kind, String workspaceId, String key) {}

  private final long maxBytes;
  private final LongSupplier nanoTime;
  private final ArrayDeque<Entry> order = new ArrayDeque<>();
  private final Map<Kind, Long> evicted = new EnumMap<>(Kind.class);
  private long bytes;
  private long evictedSinceWarning;
  private long lastWarning;
  private boolean warned;

  MemoryBudget(long maxBytes, LongSupplier nanoTime) {
    if (maxBytes < 1) {
      throw new IllegalArgumentException(
          "the memory store bound must be positive, got " + maxBytes);
    }
    this.maxBytes = maxBytes;
    this.nanoTime = nanoTime;
    for (Kind k : Kind.values()) {
      evicted.put(k, 0L);
    }
  }

  /** The default bound: a quarter of the JVM's maximum heap. */
  static long defaultMaxBytes() {
    return Math.max(1L << 20, Runtime.getRuntime().maxMemory() / 4);
  }

  long maxBytes() {
    return maxBytes;
  }

  /** The estimated bytes of the records held now. */
  long bytes() {
    return bytes;
  }

  /** Records evicted so far, of {@code kind}. */
  long evicted(Kind kind) {
    return evicted.get(kind);
  }

  /** A record was committed. */
  void added(Entry e, long size) {
    order.addLast(e);
    bytes += size;
  }

  /** A committed record changed size (a receipt got its signature) or went away. */
  void resized(long delta) {
    bytes += delta;
  }

  boolean over() {
    return bytes > maxBytes && !order.isEmpty();
  }

  /** The oldest entry, taken off the order; its record may be gone already. */
  Entry takeOldest() {
    return order.pollFirst();
  }

  /** The record of an entry taken with {@link #takeOldest} was evicted, freeing {@code size}. */
  void evicted(Entry e, long size) {
    bytes -= size;
    evicted.merge(e.kind(), 1L, Long::sum);
    evictedSinceWarning++;
  }

  /** Logs the evictions since the last note, at most once per {@link #WARN_INTERVAL}. */
  void warnIfEvicting() {
    if (evictedSinceWarning == 0) {
      return;
    }
    long now = nanoTime.getAsLong();
    if (warned && now - lastWarning < WARN_INTERVAL.toNanos()) {
      return;
    }
    warned = true;
    lastWarning = now;
    log.warn(
        "memory store full ({} MiB of records): evicted the {} oldest receipts, idempotency"
            + " records, nonces, escalations and webhook deliveries since the last note (receipts {},"
            + " idempotency {}, nonces {}, escalations {}, webhook deliveries {} in all); evicted"
            + " records are gone. The memory store is"
            + " for tests and demos: use --store sqlite:... or postgres:... to keep receipts, or"
            + " raise --memory-store-max-bytes.",
        maxBytes >> 20,
        evictedSinceWarning,
        evicted.get(Kind.RECEIPT),
        evicted.get(Kind.IDEMPOTENCY),
        evicted.get(Kind.NONCE),
        evicted.get(Kind.ESCALATION),
        evicted.get(Kind.DELIVERY));
    evictedSinceWarning = 0;
  }

  // ---- estimated heap of a record: a fixed cost per object, two bytes per character (the worst
  // case of a Java string), the bytes of a byte array.

  private static final long OBJECT = 64;

  private static long chars(String s) {
    return s == null ? 0 : OBJECT + 2L * s.length();
  }

  static long size(ReceiptRow r) {
    return 4 * OBJECT
        + chars(r.workspaceId())
        + chars(r.receiptId())
        + chars(r.authorizationId())
        + chars(r.userId())
        + chars(r.resource())
        + chars(r.sessionId())
        + chars(r.scope())
        + chars(r.event())
        + chars(r.decision())
        + chars(r.payloadJson())
        + chars(r.signedJson());
  }

  static long size(IdempotencyRow r) {
    return 4 * OBJECT
        + chars(r.apiKeyHash())
        + 2 * chars(r.idempotencyKey())
        + chars(r.requestHash())
        + chars(r.contentType())
        + (r.body() == null ? 0 : OBJECT + r.body().length);
  }

  static long size(dev.agentauth.server.domain.NonceRow n) {
    return 6 * OBJECT
        + 2 * (chars(n.workspaceId()) + chars(n.nonce()))
        + chars(n.authorizationId())
        + chars(n.scope())
        + 2 * chars(n.resource());
  }

  static long size(dev.agentauth.server.domain.EscalationRow e) {
    return 8 * OBJECT
        + 2 * chars(e.escalationId())
        + chars(e.workspaceId())
        + chars(e.authorizationId())
        + chars(e.scope())
        + 2 * chars(e.resource())
        + chars(e.escalationTo())
        + chars(e.resolvedBy())
        + chars(e.note());
  }

  static long size(WebhookDeliveryRow d) {
    return 10 * OBJECT
        + chars(d.workspaceId())
        + 2 * chars(d.webhookId())
        + 2 * chars(d.eventId())
        + chars(d.type())
        + chars(d.payload())
        + chars(d.authorizationId())
        + chars(d.subjectId())
        + chars(d.status())
        + chars(d.lastError());
  }
}
