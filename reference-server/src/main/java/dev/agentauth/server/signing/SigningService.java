package dev.agentauth.server.signing;

import dev.agentauth.server.fatal.FatalErrors;
import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.server.store.SigningKeyRow;
import dev.agentauth.server.store.Store;
import dev.agentauth.server.store.StoreUnavailableException;
import dev.agentauth.server.store.Tx;
import dev.agentauth.verifier.signing.ReceiptSigner;
import dev.agentauth.verifier.signing.SignedReceiptText;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Signs pending receipts asynchronously. Receipts are stored unsigned with their decision; the
 * request thread hands them here after commit; a signer thread signs them in batches with the
 * workspace key valid at each receipt's {@code issued_at} and records the signed form in one
 * transaction per batch ({@link Store#inSigningTransaction}, which a single-writer store runs ahead
 * of queued checks). A signature is stored only if the receipt is still unsigned, so when several
 * signers race (a {@link #sweep}, another server instance) exactly one signature is stored and
 * counted.
 *
 * <p>What it holds in memory is bounded ({@link Limits}): a queue of at most {@code queued}
 * receipts whose payloads take at most {@code queuedBytes}. A receipt that does not fit stays in
 * the store only, and the signer reads such receipts back page by page, in receipt id order, as its
 * queue drains; so does {@link #start()} with the receipts a previous run left pending, and signing
 * starts at once. While the store holds {@code backlog} pending receipts or more, {@link #admit}
 * refuses new receipt-producing work (503 with {@code Retry-After}) of the workspaces that made the
 * backlog, and from twice that of everyone, so the lag stays bounded. A {@link #sweep}, run every
 * second, recounts the store's pending receipts and signs receipts pending for more than {@link
 * #SWEEP_AGE} (left by a stopped instance); on {@link #close()} it signs what is pending before
 * returning.
 */
public final class SigningService implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SigningService.class);
  private static final int BATCH = 64;

  /** How old a pending receipt must be before the sweeper claims it. */
  static final Duration SWEEP_AGE = Duration.ofSeconds(5);

  /**
   * Signer threads. Two, so that signing keeps its share of the CPU next to busy request threads on
   * a small machine; Ed25519 signing dominates the signer's cost and parallelizes perfectly.
   */
  private static final int THREADS = 2;

  /** The most pending receipts read from the store at once. */
  private static final int PAGE = 512;

  /** Bytes counted for a queued receipt besides its payload's characters. */
  private static final long ITEM_OVERHEAD = 256;

  /**
   * What the signer may hold and lag.
   *
   * @param queued receipts queued in memory at most
   * @param queuedBytes bytes of queued payloads at most (two per character; one receipt always fits
   *     in an empty queue)
   * @param backlog pending receipts in the store from which {@link #admit} refuses new work
   */
  public record Limits(int queued, long queuedBytes, long backlog) {
    /** 16,384 receipts, 64 MiB, a backlog of 50,000. */
    public static final Limits DEFAULT = new Limits(16_384, 64L << 20, 50_000);

    public Limits {
      if (queued < 1 || queuedBytes < 1 || backlog < 1) {
        throw new IllegalArgumentException(
            "signing limits must be positive, got queued="
                + queued
                + ", queuedBytes="
                + queuedBytes
                + ", backlog="
                + backlog);
      }
    }
  }

  private final Store store;
  private final Clock clock;
  private final LongConsumer lagNanosObserver;
  private final Limits limits;
  private final LinkedBlockingQueue<Item> queue;

  /** Bytes of the payloads in {@link #queue}. */
  private final AtomicLong queuedBytes = new AtomicLong();

  /** Receipts in {@link #queue} or in a batch being signed, so none is queued twice. */
  private final Set<String> inFlight = ConcurrentHashMap.newKeySet();

  /**
   * Pending receipts in the store: counted at start, plus those submitted, less those this signer
   * stored a signature for, and set again from the store every {@link #sweep}.
   */
  private final AtomicLong pending = new AtomicLong();

  /**
   * Receipts each workspace submitted here that are not signed yet: who made the backlog. Entries
   * leave at zero, so the map holds only workspaces with receipts in flight.
   */
  private final Map<String, AtomicLong> pendingBy = new ConcurrentHashMap<>();

  /** Whether the store holds pending receipts that are not queued (the signer reads them). */
  private volatile boolean paging;

  /** Receipts left in the store instead of queued, ever; tells the pager that more arrived. */
  private final AtomicLong leftInStore = new AtomicLong();

  /** Whether a receipt was left in the store behind the pager's cursor (a failed batch). */
  private volatile boolean rescan;

  /** Held by the worker reading pending receipts from the store; guards {@link #cursor}. */
  private final ReentrantLock pager = new ReentrantLock();

  /** The last receipt id the pager read. */
  private String cursor;

  private final Map<String, CompletableFuture<String>> waiters = new ConcurrentHashMap<>();
  private final Map<String, ReceiptSigner> signers = new ConcurrentHashMap<>();

  /** Each workspace's keys as last read inside a signing transaction. */
  private final Map<String, List<SigningKeyRow>> lastKeys = new ConcurrentHashMap<>();

  private final AtomicLong signedTotal = new AtomicLong();

  private final List<Thread> workers = new ArrayList<>();
  private volatile boolean started;
  private volatile boolean stopping;

  /** Exponentially weighted nanoseconds per signature, for {@code ready_at_estimate}. */
  private volatile double nanosPerReceipt = 40_000;

  private record Item(
      String workspaceId, String receiptId, Instant issuedAt, String payload, long enqueuedNanos) {
    long bytes() {
      return 2L * payload.length() + ITEM_OVERHEAD;
    }
  }

  /**
   * @param lagNanosObserver told, for every receipt signed, how long it waited since enqueued
   */
  public SigningService(Store store, Clock clock, LongConsumer lagNanosObserver) {
    this(store, clock, lagNanosObserver, Limits.DEFAULT);
  }

  /**
   * @param lagNanosObserver told, for every receipt signed, how long it waited since enqueued
   * @param limits what the signer may hold in memory and lag
   */
  public SigningService(Store store, Clock clock, LongConsumer lagNanosObserver, Limits limits) {
    this.store = store;
    this.clock = clock;
    this.lagNanosObserver = lagNanosObserver;
    this.limits = java.util.Objects.requireNonNull(limits, "limits");
    this.queue = new LinkedBlockingQueue<>(limits.queued());
    for (int i = 0; i < THREADS; i++) {
      Thread t = new Thread(this::run, "agentauth-signer-" + i);
      t.setDaemon(true);
      workers.add(t);
    }
  }

  /**
   * Counts the receipts the store holds unsigned and starts signing; the signer threads read them
   * from the store page by page as their queue drains, oldest id first.
   */
  public void start() {
    long resumed = store.read(tx -> tx.countPendingReceipts(countCap()));
    pending.set(resumed);
    if (resumed > 0) {
      paging = true;
      log.info(
          "resuming signing of {}{} pending receipts",
          resumed >= countCap() ? "at least " : "",
          resumed);
    }
    workers.forEach(Thread::start);
    started = true;
  }

  /**
   * Whether the signer threads run (for {@code /healthz}): true before {@link #start} and while
   * every one of them is alive; false once one has died or they stopped after a drain.
   */
  public boolean isLive() {
    return !started || workers.stream().allMatch(Thread::isAlive);
  }

  /** How far the store's pending receipts are counted: enough to tell the backlog is too long. */
  private long countCap() {
    return Math.max(2 * limits.backlog(), 1_000);
  }

  /**
   * Hands newly committed, unsigned receipts to the signer. Those that do not fit in its queue stay
   * in the store, from where the signer reads them when it has room.
   */
  public void submit(List<ReceiptRow> rows) {
    if (rows.isEmpty()) {
      return;
    }
    pending.addAndGet(rows.size());
    for (ReceiptRow r : rows) {
      pendingBy.computeIfAbsent(r.workspaceId(), ws -> new AtomicLong()).incrementAndGet();
    }
    long now = System.nanoTime();
    for (ReceiptRow r : rows) {
      // While the store holds older pending receipts, new ones wait behind them there.
      if (paging
          || !offer(new Item(r.workspaceId(), r.receiptId(), r.issuedAt(), r.payloadJson(), now))) {
        leaveInStore();
      }
    }
  }

  /**
   * Refuses new receipt-producing work of {@code workspaceId} while signing is too far behind, so
   * that the lag stays bounded and the workspace that made the backlog is the one held back:
   *
   * <ul>
   *   <li>below {@link Limits#backlog()} pending receipts in the store, everyone is admitted;
   *   <li>from there, a workspace with at least {@link #fairShare()} receipts of its own still
   *       unsigned here is refused, the others are admitted;
   *   <li>from twice the backlog, everyone is refused.
   * </ul>
   *
   * @throws StoreUnavailableException when refused, with the seconds the signer needs to catch up
   *     as {@code Retry-After}
   */
  public void admit(String workspaceId) {
    long n = pending.get();
    if (n < limits.backlog()) {
      return;
    }
    AtomicLong own = pendingBy.get(workspaceId);
    if (n < 2 * limits.backlog() && (own == null || own.get() < fairShare())) {
      return;
    }
    double seconds = (n - limits.backlog() + 1) * nanosPerReceipt / THREADS / 1e9;
    throw new StoreUnavailableException(
        "signing is " + n + " receipts behind (limit " + limits.backlog() + ")",
        Math.min(30, (long) Math.ceil(seconds)));
  }

  /** Unsigned receipts of one workspace from which it is held back over the backlog: 1/8 of it. */
  long fairShare() {
    return Math.max(1, limits.backlog() / 8);
  }

  /** One receipt of {@code workspaceId} was signed (here or elsewhere): it no longer counts. */
  private void signedFor(String workspaceId) {
    pendingBy.computeIfPresent(workspaceId, (ws, n) -> n.decrementAndGet() <= 0 ? null : n);
  }

  /** Queues {@code item} unless it is queued already; false when the queue has no room. */
  private boolean offer(Item item) {
    if (!inFlight.add(item.receiptId())) {
      return true;
    }
    long b = item.bytes();
    while (true) {
      long held = queuedBytes.get();
      if (held > 0 && held + b > limits.queuedBytes()) {
        inFlight.remove(item.receiptId());
        return false;
      }
      if (queuedBytes.compareAndSet(held, held + b)) {
        break;
      }
    }
    if (!queue.offer(item)) {
      queuedBytes.addAndGet(-b);
      inFlight.remove(item.receiptId());
      return false;
    }
    return true;
  }

  /** Notes that a pending receipt was left in the store, for the pager to read. */
  private void leaveInStore() {
    leftInStore.incrementAndGet();
    paging = true;
  }

  /** Queues a failed batch again; what does not fit is read back from the store later. */
  private void requeue(List<Item> batch) {
    for (Item item : batch) {
      inFlight.remove(item.receiptId());
      if (!offer(item)) {
        rescan = true;
        leaveInStore();
      }
    }
  }

  /**
   * Tops the queue up from the store's pending receipts, in receipt id order after the last one
   * read, once it has room for a page; stops paging when a read finds no more and no receipt was
   * left in the store meanwhile. One worker pages at a time.
   */
  private void pageIn() {
    if (!pager.tryLock()) {
      return;
    }
    try {
      while (paging && !Thread.currentThread().isInterrupted()) {
        int room = queue.remainingCapacity();
        int want = Math.min(PAGE, room);
        if (want < Math.min(PAGE, Math.max(1, limits.queued() / 2))) {
          return; // enough queued; read more when it has drained
        }
        if (rescan) {
          rescan = false;
          cursor = null;
        }
        long leftBefore = leftInStore.get();
        String from = cursor;
        List<ReceiptRow> page = store.read(tx -> tx.pendingReceipts(from, want));
        long now = System.nanoTime();
        Instant wall = clock.instant();
        for (ReceiptRow r : page) {
          // The lag counts from the receipt's issue, as far as the clock tells.
          long waited = Math.max(0, Duration.between(r.issuedAt(), wall).toNanos());
          Item item =
              new Item(r.workspaceId(), r.receiptId(), r.issuedAt(), r.payloadJson(), now - waited);
          if (!offer(item)) {
            return; // the byte budget is spent; read on from here later
          }
          cursor = r.receiptId();
        }
        if (page.size() < want) {
          paging = false;
          if (leftInStore.get() == leftBefore) {
            return;
          }
          paging = true; // some were left in the store since the read began: read on
        }
      }
    } finally {
      pager.unlock();
    }
  }

  /**
   * A future completed with the signed receipt text when {@code receiptId} is signed. Register
   * before {@link #submit} to be sure not to miss it; callers must remove interest with {@link
   * #forget} when they stop waiting.
   */
  public CompletableFuture<String> whenSigned(String receiptId) {
    return waiters.computeIfAbsent(receiptId, id -> new CompletableFuture<>());
  }

  /** Drops the waiter registered for {@code receiptId}. */
  public void forget(String receiptId) {
    waiters.remove(receiptId);
  }

  /** When the signer expects to have signed a receipt submitted now. */
  public Instant readyAtEstimate() {
    long backlog = Math.max(0, pending.get()) + 1L;
    long nanos = (long) (backlog * nanosPerReceipt) + 2_000_000L; // plus one batch commit
    return clock.instant().plusNanos(nanos);
  }

  /**
   * Receipts waiting to be signed: the store's pending receipts as last counted, plus those
   * submitted since, less those signed since.
   */
  public long backlog() {
    return Math.max(0, pending.get());
  }

  /** Receipts queued in memory (at most {@link Limits#queued()}). */
  public int queued() {
    return queue.size();
  }

  /** Bytes the queued receipts' payloads take, as counted against {@link Limits#queuedBytes()}. */
  public long queuedBytes() {
    return queuedBytes.get();
  }

  public long signedTotal() {
    return signedTotal.get();
  }

  private void run() {
    List<Item> batch = new ArrayList<>(BATCH);
    while (true) {
      try {
        if (paging) {
          pageIn();
        }
        Item first = queue.poll(50, TimeUnit.MILLISECONDS);
        if (first == null) {
          if (stopping && !paging) {
            return;
          }
          continue;
        }
        batch.add(first);
        queue.drainTo(batch, BATCH - 1);
        gather(batch);
        long taken = 0;
        for (Item item : batch) {
          taken += item.bytes();
        }
        queuedBytes.addAndGet(-taken);
        signBatch(batch);
        batch.forEach(item -> inFlight.remove(item.receiptId()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Throwable e) {
        // Whatever failed — the store, a key, an Error — the thread goes on: the receipts stay
        // pending in the store and are retried after a pause.
        try {
          log.error("signing batch failed; will retry", e);
          requeue(batch);
        } catch (Throwable again) {
          // left pending in the store: the sweeper signs them
        } finally {
          FatalErrors.report(e);
        }
        if (stopping && !store.isLive()) {
          return; // draining on a dead store: leave the rest pending for the next start
        }
        java.util.concurrent.locks.LockSupport.parkNanos(200_000_000L);
        if (Thread.currentThread().isInterrupted()) {
          return;
        }
      } finally {
        batch.clear();
      }
    }
  }

  /**
   * Waits up to the store's {@link Store#batchLinger()} for more receipts to join a small batch: on
   * a database across the network each batch costs a few round trips, whatever its size.
   */
  private void gather(List<Item> batch) throws InterruptedException {
    long linger = store.batchLinger().toNanos();
    if (linger <= 0) {
      return;
    }
    long deadline = System.nanoTime() + linger;
    while (batch.size() < BATCH) {
      long left = deadline - System.nanoTime();
      Item next = left > 0 ? queue.poll(left, TimeUnit.NANOSECONDS) : null;
      if (next == null) {
        return;
      }
      batch.add(next);
      queue.drainTo(batch, BATCH - batch.size());
    }
  }

  private void signBatch(List<Item> batch) {
    long start = System.nanoTime();
    Set<String> workspaces = new HashSet<>();
    batch.forEach(item -> workspaces.add(item.workspaceId()));
    // Sign with the keys last seen; the transaction below re-reads them and re-signs any receipt
    // a rotation (by any instance sharing the store) has changed the key for.
    Map<String, List<SigningKeyRow>> keys = new HashMap<>();
    for (String ws : workspaces) {
      List<SigningKeyRow> known = lastKeys.get(ws);
      keys.put(ws, known != null ? known : store.read(tx -> tx.signingKeys(ws)));
    }
    String[] texts = new String[batch.size()];
    for (int i = 0; i < texts.length; i++) {
      Item item = batch.get(i);
      texts[i] =
          sign(keys.get(item.workspaceId()), item.workspaceId(), item.issuedAt(), item.payload());
    }
    // Store each signature unless another signer (a sweeper, another instance) stored one first;
    // then the stored text is the one waiters get.
    String[] stored = new String[texts.length];
    int won =
        store.inSigningTransaction(
            tx -> {
              // Holding the workspace's key lock (shared), re-read its keys: a rotation committed
              // since they were read above may have retired a key at an instant before some
              // receipt's issued_at, and such a receipt is signed again with the right key here.
              Map<String, List<SigningKeyRow>> changed = new HashMap<>();
              for (String ws : workspaces) {
                tx.lockShared(keysLockName(ws));
                List<SigningKeyRow> now = tx.signingKeys(ws);
                if (!sameWindows(now, keys.get(ws))) {
                  changed.put(ws, now);
                }
                lastKeys.put(ws, now);
              }
              List<Tx.Signed> signed = new ArrayList<>(texts.length);
              for (int i = 0; i < texts.length; i++) {
                Item item = batch.get(i);
                List<SigningKeyRow> now = changed.get(item.workspaceId());
                if (now != null) {
                  texts[i] = sign(now, item.workspaceId(), item.issuedAt(), item.payload());
                }
                signed.add(new Tx.Signed(item.workspaceId(), item.receiptId(), texts[i]));
              }
              boolean[] ours = tx.markSignedAll(signed);
              int n = 0;
              for (int i = 0; i < texts.length; i++) {
                if (ours[i]) {
                  stored[i] = texts[i];
                  n++;
                } else {
                  Item item = batch.get(i);
                  stored[i] =
                      tx.receipt(item.workspaceId(), item.receiptId())
                          .map(ReceiptRow::signedJson)
                          .orElse(null);
                }
              }
              return n;
            });
    long end = System.nanoTime();
    nanosPerReceipt = 0.8 * nanosPerReceipt + 0.2 * ((end - start) / (double) batch.size());
    signedTotal.addAndGet(won);
    pending.addAndGet(-won);
    for (int i = 0; i < batch.size(); i++) {
      Item item = batch.get(i);
      lagNanosObserver.accept(end - item.enqueuedNanos());
      if (stored[i] != null) {
        signedFor(item.workspaceId());
      }
      complete(item.receiptId(), stored[i]);
    }
  }

  private void complete(String receiptId, String signedJson) {
    if (signedJson == null) {
      return;
    }
    CompletableFuture<String> f = waiters.remove(receiptId);
    if (f != null) {
      f.complete(signedJson);
    }
  }

  /**
   * Claims pending receipts issued more than {@link #SWEEP_AGE} ago — left by an instance that
   * stopped, or by a failed batch — and signs them inside the claiming transaction, so each is
   * signed by exactly one claimer ({@code FOR UPDATE SKIP LOCKED} on PostgreSQL).
   */
  public void sweep() {
    recount();
    if (paging) {
      return; // the signer is reading the store's pending receipts itself, oldest first
    }
    try {
      while (!stopping) {
        Instant cutoff = clock.instant().minus(SWEEP_AGE);
        List<Tx.Signed> signed =
            store.inTransaction(
                tx -> {
                  List<Tx.Signed> texts = new ArrayList<>();
                  Map<String, List<SigningKeyRow>> keys = new HashMap<>();
                  for (ReceiptRow r : tx.claimPending(cutoff, BATCH)) {
                    List<SigningKeyRow> ks =
                        keys.computeIfAbsent(
                            r.workspaceId(),
                            ws -> {
                              tx.lockShared(keysLockName(ws));
                              return tx.signingKeys(ws);
                            });
                    texts.add(
                        new Tx.Signed(
                            r.workspaceId(),
                            r.receiptId(),
                            sign(ks, r.workspaceId(), r.issuedAt(), r.payloadJson())));
                  }
                  boolean[] ours = tx.markSignedAll(texts);
                  List<Tx.Signed> out = new ArrayList<>();
                  for (int i = 0; i < ours.length; i++) {
                    if (ours[i]) {
                      out.add(texts.get(i));
                    }
                  }
                  return out;
                });
        signedTotal.addAndGet(signed.size());
        pending.addAndGet(-signed.size());
        for (Tx.Signed s : signed) {
          signedFor(s.workspaceId());
          complete(s.receiptId(), s.signedJson());
        }
        if (!signed.isEmpty()) {
          log.info("signed {} receipts left pending by an earlier run or instance", signed.size());
        }
        if (signed.size() < BATCH) {
          return;
        }
      }
    } catch (RuntimeException e) {
      log.warn("signing left-over pending receipts failed; will retry", e);
    }
  }

  /**
   * Sets {@link #backlog()} from the store's count of pending receipts (which, on a store shared by
   * several instances, includes theirs), keeping what was submitted and signed while it counted.
   */
  private void recount() {
    try {
      long before = pending.get();
      long counted = store.read(tx -> tx.countPendingReceipts(countCap()));
      pending.addAndGet(counted - before);
      if (counted == 0) {
        // Nothing is pending anywhere: receipts of ours that another instance signed no longer
        // count against their workspace's share.
        pendingBy.clear();
      }
    } catch (RuntimeException e) {
      log.warn("counting pending receipts failed; will retry", e);
    }
  }

  /**
   * The name of the lock a key rotation takes exclusively and a signer takes shared while it stores
   * signatures, so a signature is never stored with a key a concurrent rotation retired.
   */
  public static String keysLockName(String workspaceId) {
    return "signing-keys/" + workspaceId;
  }

  /** Whether two key lists have the same keys with the same validity windows. */
  private static boolean sameWindows(List<SigningKeyRow> a, List<SigningKeyRow> b) {
    if (b == null || a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      SigningKeyRow x = a.get(i);
      SigningKeyRow y = b.get(i);
      if (!x.keyId().equals(y.keyId())
          || !x.activeFrom().equals(y.activeFrom())
          || !java.util.Objects.equals(x.activeUntil(), y.activeUntil())) {
        return false;
      }
    }
    return true;
  }

  /** Signs one payload with the workspace key valid at {@code issuedAt} (the newest such). */
  private String sign(
      List<SigningKeyRow> keys, String workspaceId, Instant issuedAt, String payload) {
    SigningKeyRow best = null;
    for (SigningKeyRow k : keys == null ? List.<SigningKeyRow>of() : keys) {
      if (k.validAt(issuedAt) && (best == null || k.activeFrom().isAfter(best.activeFrom()))) {
        best = k;
      }
    }
    if (best == null) {
      throw new IllegalStateException(
          "no signing key of workspace " + workspaceId + " is valid at " + issuedAt);
    }
    SigningKeyRow key = best;
    // A key's seed never changes, so its signer is cached by key id.
    ReceiptSigner signer =
        signers.computeIfAbsent(key.keyId(), id -> ReceiptSigner.fromSeed(id, key.privateSeed()));
    String value = signer.signatureValue(payload.getBytes(StandardCharsets.UTF_8));
    return SignedReceiptText.of(payload, key.keyId(), value);
  }

  /**
   * Stops taking new work, signs everything queued and everything the store still holds pending,
   * and returns once that is done or {@code timeout} passed.
   */
  public void drain(Duration timeout) {
    stopping = true;
    try {
      long deadline = System.nanoTime() + timeout.toNanos();
      for (Thread t : workers) {
        long leftMillis = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
        t.join(leftMillis);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    drain(Duration.ofSeconds(30));
  }
}
