package dev.agentauth.server.service;

import dev.agentauth.model.Plan;
import dev.agentauth.server.engine.DecisionEngine;
import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.server.store.Store;
import dev.agentauth.server.store.UsageTx.ReceiptUsage;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-workspace receipt quotas: receipts and receipt bytes per UTC day, by plan. Receipts are kept,
 * so what a workspace may store in a day bounds how fast it can fill the disk.
 *
 * <p>The counts live in memory, one counter per workspace and day, so {@link #admit} costs a map
 * lookup. {@link #record} adds a committed mutation's receipts; {@link #flush} (run about once a
 * second, and once by {@link #start}) adds what was recorded since to the store's {@code
 * receipt_usage} rows and reads the day's totals back — from this instance and any other on the
 * same database. So the counts survive a restart (less at most the last second's before a crash),
 * and several instances see each other's usage a second late.
 *
 * <p>The quota is checked before a request, not per receipt: a workspace at 99,999 of 100,000 may
 * still make a 20-scope check, and concurrent requests (or instances) may all pass before any
 * records. A workspace can go over by what its requests in flight write; then it is refused until
 * the next UTC day, measured on the server's clock.
 *
 * <p>Thread-safe.
 */
public final class ReceiptQuotas {
  private static final Logger log = LoggerFactory.getLogger(ReceiptQuotas.class);

  /**
   * One plan's quota; 0 means no limit.
   *
   * @param receiptsPerDay receipts a workspace may store per UTC day
   * @param bytesPerDay characters of canonical receipt payloads a workspace may store per UTC day
   */
  public record Quota(long receiptsPerDay, long bytesPerDay) {
    /** No limit. */
    public static final Quota UNLIMITED = new Quota(0, 0);

    public Quota {
      if (receiptsPerDay < 0 || bytesPerDay < 0) {
        throw new IllegalArgumentException(
            "quotas must be >= 0 (0 = unlimited), got " + receiptsPerDay + ", " + bytesPerDay);
      }
    }
  }

  /**
   * The quota of each plan.
   *
   * @param free the free plan's
   * @param pro the pro plan's
   */
  public record Limits(Quota free, Quota pro) {
    /**
     * Free: 100,000 receipts and 1 GiB a day; pro: 5,000,000 receipts and 10 GiB a day (see
     * docs/server.md, "Limits").
     */
    public static final Limits DEFAULT =
        new Limits(new Quota(100_000, 1L << 30), new Quota(5_000_000, 10L << 30));

    /** No quota for any plan. */
    public static final Limits UNLIMITED = new Limits(Quota.UNLIMITED, Quota.UNLIMITED);

    public Limits {
      if (free == null || pro == null) {
        throw new IllegalArgumentException("both plans need a quota");
      }
    }

    Quota of(Plan.Known plan) {
      return plan == Plan.Known.PRO ? pro : free;
    }
  }

  private record Key(String workspaceId, LocalDate day) {}

  /** One workspace's counts of one day: as last read from the store, being written, and since. */
  private static final class Counter {
    private long storedReceipts;
    private long storedBytes;
    private long flushingReceipts;
    private long flushingBytes;
    private long newReceipts;
    private long newBytes;
    private boolean refusedLogged;

    synchronized long receipts() {
      return storedReceipts + flushingReceipts + newReceipts;
    }

    synchronized long bytes() {
      return storedBytes + flushingBytes + newBytes;
    }

    synchronized void add(long receipts, long bytes) {
      newReceipts += receipts;
      newBytes += bytes;
    }

    /** Moves the new counts to flushing and returns them; null if there are none. */
    synchronized long[] startFlush() {
      if (newReceipts == 0 && newBytes == 0) {
        return null;
      }
      flushingReceipts = newReceipts;
      flushingBytes = newBytes;
      newReceipts = 0;
      newBytes = 0;
      return new long[] {flushingReceipts, flushingBytes};
    }

    /** The flush failed: its counts are new again. */
    synchronized void flushFailed() {
      newReceipts += flushingReceipts;
      newBytes += flushingBytes;
      flushingReceipts = 0;
      flushingBytes = 0;
    }

    /** The store's totals, which include what was flushing. */
    synchronized void stored(ReceiptUsage total) {
      storedReceipts = total.receipts();
      storedBytes = total.bytes();
      flushingReceipts = 0;
      flushingBytes = 0;
    }

    /** Its flushed counts were written; true when nothing new was recorded since. */
    synchronized boolean settled() {
      flushingReceipts = 0;
      flushingBytes = 0;
      return newReceipts == 0 && newBytes == 0;
    }

    /** True the first time it is called (to log a workspace's refusal once a day). */
    synchronized boolean firstRefusal() {
      boolean first = !refusedLogged;
      refusedLogged = true;
      return first;
    }
  }

  private final Store store;
  private final Clock clock;
  private final Limits limits;
  private final Map<Key, Counter> counters = new ConcurrentHashMap<>();
  private final AtomicLong refusedReceipts = new AtomicLong();
  private final AtomicLong refusedBytes = new AtomicLong();
  private final Object flushing = new Object();

  public ReceiptQuotas(Store store, Clock clock, Limits limits) {
    this.store = store;
    this.clock = clock;
    this.limits = limits;
  }

  public Limits limits() {
    return limits;
  }

  /** Reads today's usage of every workspace from the store. */
  public void start() {
    flush();
  }

  /**
   * Refuses a request that would store receipts when {@code caller}'s workspace has used its quota
   * of today.
   *
   * @throws ServiceException 429 {@code quota_exceeded}, with {@code Retry-After} the seconds until
   *     the next UTC day
   */
  public void admit(Caller caller) {
    Quota q = limits.of(caller.plan());
    if (q.receiptsPerDay() == 0 && q.bytesPerDay() == 0) {
      return;
    }
    Instant now = clock.instant();
    Counter c = counters.get(new Key(caller.workspaceId(), DecisionEngine.utcDay(now)));
    if (c == null) {
      return;
    }
    String what;
    if (q.receiptsPerDay() > 0 && c.receipts() >= q.receiptsPerDay()) {
      refusedReceipts.incrementAndGet();
      what = q.receiptsPerDay() + " receipts";
    } else if (q.bytesPerDay() > 0 && c.bytes() >= q.bytesPerDay()) {
      refusedBytes.incrementAndGet();
      what = q.bytesPerDay() + " bytes of receipts";
    } else {
      return;
    }
    long retryAfter = secondsToNextDay(now);
    if (c.firstRefusal()) {
      log.warn(
          "workspace {} reached its receipt quota of the day ({}); requests that store receipts"
              + " answer 429 for {} s",
          caller.workspaceId(),
          what,
          retryAfter);
    }
    throw ServiceException.quotaExceeded(
        retryAfter,
        "this workspace stored its quota of "
            + what
            + " for today (UTC); requests that store receipts are refused until the next day");
  }

  /** Seconds from {@code now} to the next UTC midnight, at least 1. */
  static long secondsToNextDay(Instant now) {
    Instant next = DecisionEngine.utcDay(now).plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant();
    long millis = Duration.between(now, next).toMillis();
    return Math.max(1, (millis + 999) / 1000);
  }

  /** Counts committed receipts against their workspaces' quotas of their UTC day. */
  public void record(List<ReceiptRow> rows) {
    for (ReceiptRow r : rows) {
      counters
          .computeIfAbsent(
              new Key(r.workspaceId(), DecisionEngine.utcDay(r.issuedAt())), k -> new Counter())
          .add(1, r.payloadJson().length());
    }
  }

  /**
   * Adds the counts recorded since the last flush to the store and reads today's totals back; drops
   * the counters of past days once written. On a store failure the counts stay in memory for the
   * next flush.
   */
  public void flush() {
    synchronized (flushing) {
      LocalDate today = DecisionEngine.utcDay(clock.instant());
      List<Counter> written = new ArrayList<>();
      Map<Key, long[]> deltas = new HashMap<>();
      for (Map.Entry<Key, Counter> e : counters.entrySet()) {
        long[] d = e.getValue().startFlush();
        if (d != null) {
          deltas.put(e.getKey(), d);
          written.add(e.getValue());
        }
      }
      Map<String, ReceiptUsage> totals;
      try {
        totals =
            deltas.isEmpty()
                ? store.read(tx -> tx.receiptUsages(today))
                : store.inTransaction(
                    tx -> {
                      for (Map.Entry<Key, long[]> e : deltas.entrySet()) {
                        Key k = e.getKey();
                        long[] d = e.getValue();
                        tx.addReceiptUsage(k.workspaceId(), k.day(), d[0], d[1]);
                      }
                      return tx.receiptUsages(today);
                    });
      } catch (RuntimeException e) {
        written.forEach(Counter::flushFailed);
        throw e;
      }
      for (Map.Entry<String, ReceiptUsage> e : totals.entrySet()) {
        counters
            .computeIfAbsent(new Key(e.getKey(), today), k -> new Counter())
            .stored(e.getValue());
      }
      // A past day's counts are in the store now and no longer matter here. (A receipt of that day
      // recorded during this flush may be lost from its row: the day's quota is over.)
      counters.entrySet().removeIf(e -> e.getKey().day().isBefore(today) && e.getValue().settled());
    }
  }

  /** Receipts stored today by every workspace, as counted here. */
  public long receiptsToday() {
    return sumToday(true);
  }

  /** Receipt bytes stored today by every workspace, as counted here. */
  public long bytesToday() {
    return sumToday(false);
  }

  private long sumToday(boolean receipts) {
    LocalDate today = DecisionEngine.utcDay(clock.instant());
    long sum = 0;
    for (Map.Entry<Key, Counter> e : counters.entrySet()) {
      if (e.getKey().day().equals(today)) {
        sum += receipts ? e.getValue().receipts() : e.getValue().bytes();
      }
    }
    return sum;
  }

  /** Requests refused because a workspace had stored its receipts of the day. */
  public long refusedForReceipts() {
    return refusedReceipts.get();
  }

  /** Requests refused because a workspace had stored its receipt bytes of the day. */
  public long refusedForBytes() {
    return refusedBytes.get();
  }
}
