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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Signs pending receipts asynchronously. Receipts are stored unsigned with their decision; the
 * request thread hands them here after commit; signer threads sign them in batches with the
 * workspace key valid at each receipt's {@code issued_at} and record the signed form in one
 * transaction per batch ({@link Store#inSigningTransaction}, which a single-writer store runs ahead
 * of queued checks). A signature is stored only if the receipt is still unsigned, so when several
 * signers race (a {@link #sweep}, another server instance) exactly one signature is stored and
 * counted.
 *
 * <p><b>Fairness.</b> Each workspace has its own queue, and the signers serve the workspaces in
 * turn, one receipt each ({@link WorkspaceQueues}): a workspace flooding the signer delays another
 * workspace's receipt by about one batch, not by its whole backlog. What is held in memory is
 * bounded ({@link Limits}): at most {@code queued} receipts whose payloads take at most {@code
 * queuedBytes}, a quarter of each for one workspace. A receipt that does not fit stays in the store
 * only; the {@link BacklogPager} reads such receipts back page by page, each workspace in turn from
 * its own cursor, as the queues drain; so does {@link #start()} with the receipts a previous run
 * left pending, and signing starts at once.
 *
 * <p><b>Admission.</b> {@link #admit} refuses new receipt-producing work (503 with {@code
 * Retry-After}) of a workspace with {@link Limits#workspaceBacklog()} receipts unsigned, and, while
 * the store holds {@link Limits#backlog()} pending receipts or more, of every workspace but those
 * with few unsigned; from twice that, of everyone.
 *
 * <p><b>Waiting.</b> A request that asks to wait for its signatures ({@code wait=true}) first asks
 * {@link #tryBeginWait}: waiting requests are bounded per workspace and in all, and a request whose
 * receipts are not expected to be signed within the wait is answered at once instead.
 *
 * <p>A {@link #sweep}, run every second, recounts the store's pending receipts and signs receipts
 * pending for more than {@link #SWEEP_AGE} (left by a stopped instance); on {@link #close()} it
 * signs what is pending before returning.
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
  static final int THREADS = 2;

  // ---- limits: options of the server (their own block, see docs/server.md "Signing backlog")

  /** Default of {@link Limits#workspaceBacklog()}. */
  public static final long DEFAULT_WORKSPACE_BACKLOG = 5_000;

  /** Default of {@link Limits#waitsPerWorkspace()}. */
  public static final int DEFAULT_WAITS_PER_WORKSPACE = 8;

  /** Default of {@link Limits#waits()}. */
  public static final int DEFAULT_WAITS = 64;

  /**
   * What the signer may hold and lag, and how many requests may wait for it.
   *
   * @param queued receipts queued in memory at most (a quarter of them of one workspace)
   * @param queuedBytes bytes of queued payloads at most (two per character; one receipt always fits
   *     in an empty queue; a quarter of them of one workspace)
   * @param backlog pending receipts in the store from which {@link #admit} refuses new work of all
   *     but lightly loaded workspaces
   * @param workspaceBacklog unsigned receipts of one workspace from which {@link #admit} refuses
   *     its new work
   * @param waitsPerWorkspace requests of one workspace that may wait for signatures at once
   * @param waits requests of all workspaces that may wait for signatures at once
   */
  public record Limits(
      int queued,
      long queuedBytes,
      long backlog,
      long workspaceBacklog,
      int waitsPerWorkspace,
      int waits) {
    /** 16,384 receipts, 64 MiB, a backlog of 50,000, 5,000 per workspace, 8 and 64 waits. */
    public static final Limits DEFAULT =
        new Limits(
            16_384,
            64L << 20,
            50_000,
            DEFAULT_WORKSPACE_BACKLOG,
            DEFAULT_WAITS_PER_WORKSPACE,
            DEFAULT_WAITS);

    public Limits {
      if (queued < 1 || queuedBytes < 1 || backlog < 1 || workspaceBacklog < 1) {
        throw new IllegalArgumentException(
            "signing limits must be positive, got queued="
                + queued
                + ", queuedBytes="
                + queuedBytes
                + ", backlog="
                + backlog
                + ", workspaceBacklog="
                + workspaceBacklog);
      }
      if (waitsPerWorkspace < 0 || waits < 0) {
        throw new IllegalArgumentException(
            "signature waits must not be negative, got waitsPerWorkspace="
                + waitsPerWorkspace
                + ", waits="
                + waits);
      }
    }

    /**
     * The memory bounds and backlog given, a workspace's backlog of a tenth of it (at most {@value
     * #DEFAULT_WORKSPACE_BACKLOG}) and the default waits.
     */
    public Limits(int queued, long queuedBytes, long backlog) {
      this(
          queued,
          queuedBytes,
          backlog,
          Math.max(1, Math.min(DEFAULT_WORKSPACE_BACKLOG, backlog / 10)),
          DEFAULT_WAITS_PER_WORKSPACE,
          DEFAULT_WAITS);
    }
  }

  private final Store store;
  private final Clock clock;
  private final LongConsumer lagNanosObserver;
  private final Limits limits;
  private final WorkspaceQueues queues;
  private final WaitLimiter waitLimiter;
  private final BacklogPager pager;

  /** Receipts in {@link #queues} or in a batch being signed, so none is queued twice. */
  private final Set<String> inFlight = ConcurrentHashMap.newKeySet();

  /**
   * Pending receipts in the store: counted at start, plus those submitted, less those this signer
   * stored a signature for, and set again from the store every {@link #sweep}.
   */
  private final AtomicLong pending = new AtomicLong();

  /**
   * Receipts of each workspace not signed yet: those it submitted here, and those found in the
   * store at start or recounted there by {@link #sweep}. Entries leave at zero, so the map holds
   * only workspaces with receipts pending.
   */
  private final Map<String, AtomicLong> pendingBy = new ConcurrentHashMap<>();

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

  /** The issue time of the oldest pending receipt the last {@link #sweep} saw, or null. */
  private volatile Instant oldestPending;

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
    this.queues =
        new WorkspaceQueues(
            limits.queued(),
            limits.queuedBytes(),
            Math.max(1, limits.queued() / 4),
            Math.max(1, limits.queuedBytes() / 4));
    this.waitLimiter = new WaitLimiter(limits.waitsPerWorkspace(), limits.waits());
    this.pager =
        new BacklogPager(
            store,
            clock,
            queues,
            this::offer,
            (ws, counted) ->
                pendingBy
                    .computeIfAbsent(ws, w -> new AtomicLong())
                    .accumulateAndGet(counted, Math::max),
            2 * limits.workspaceBacklog());
    for (int i = 0; i < THREADS; i++) {
      Thread t = new Thread(this::run, "agentauth-signer-" + i);
      t.setDaemon(true);
      workers.add(t);
    }
  }

  /**
   * Counts the receipts the store holds unsigned and starts signing; the signer threads find the
   * workspaces that have any and read their receipts from the store page by page, each workspace in
   * turn, as their queue drains.
   */
  public void start() {
    long resumed = store.read(tx -> tx.countPendingReceipts(countCap()));
    pending.set(resumed);
    if (resumed > 0) {
      pager.discoverAll();
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
      // While the store holds older pending receipts of the workspace, new ones wait behind them
      // there.
      if (pager.isSpilled(r.workspaceId())
          || !offer(
              new WorkspaceQueues.Item(
                  r.workspaceId(), r.receiptId(), r.issuedAt(), r.payloadJson(), now))) {
        pager.leftInStore(r.workspaceId(), false);
      }
    }
  }

  /**
   * Refuses new receipt-producing work of {@code workspaceId} while signing is too far behind for
   * it, so that the lag stays bounded and the workspace that made the backlog is the one held back:
   *
   * <ul>
   *   <li>a workspace with {@link Limits#workspaceBacklog()} receipts unsigned is refused;
   *   <li>from {@link Limits#backlog()} pending receipts in the store, a workspace with at least
   *       {@link #lightLoad()} unsigned is refused, the others are admitted;
   *   <li>from twice the backlog, everyone is refused.
   * </ul>
   *
   * @throws StoreUnavailableException when refused, with the seconds the signer needs to catch up
   *     as {@code Retry-After}
   */
  public void admit(String workspaceId) {
    long own = unsigned(workspaceId);
    if (own >= limits.workspaceBacklog()) {
      // Its receipts are signed at its share of the signers' rate.
      double seconds =
          (own - limits.workspaceBacklog() + 1)
              * Math.max(1, pendingBy.size())
              * nanosPerReceipt
              / THREADS
              / 1e9;
      throw new StoreUnavailableException(
          "signing is "
              + own
              + " receipts of this workspace behind (limit "
              + limits.workspaceBacklog()
              + " a workspace)",
          Math.max(1, Math.min(30, (long) Math.ceil(seconds))));
    }
    long n = pending.get();
    if (n < limits.backlog()) {
      return;
    }
    if (n < 2 * limits.backlog() && own < lightLoad()) {
      return;
    }
    double seconds = (n - limits.backlog() + 1) * nanosPerReceipt / THREADS / 1e9;
    throw new StoreUnavailableException(
        "signing is " + n + " receipts behind (limit " + limits.backlog() + ")",
        Math.max(1, Math.min(30, (long) Math.ceil(seconds))));
  }

  /**
   * Unsigned receipts below which a workspace is still admitted over the backlog: 1/8 of its cap.
   */
  long lightLoad() {
    return Math.max(1, limits.workspaceBacklog() / 8);
  }

  /** Receipts of {@code workspaceId} not signed yet, as this signer counts them. */
  long unsigned(String workspaceId) {
    AtomicLong own = pendingBy.get(workspaceId);
    return own == null ? 0 : Math.max(0, own.get());
  }

  /** One receipt of {@code workspaceId} was signed (here or elsewhere): it no longer counts. */
  /**
   * Sets what hears, per receipt, the workspace of each signature this signer stored (the log's
   * integrator); it must be cheap and must not block.
   */
  public void onSigned(java.util.function.Consumer<String> listener) {
    this.signedListener = java.util.Objects.requireNonNull(listener);
  }

  private volatile java.util.function.Consumer<String> signedListener = ws -> {};

  private void signedFor(String workspaceId) {
    signedListener.accept(workspaceId);
    pendingBy.computeIfPresent(workspaceId, (ws, n) -> n.decrementAndGet() <= 0 ? null : n);
  }

  /** Queues {@code item} unless it is queued already; false when its queue has no room. */
  private boolean offer(WorkspaceQueues.Item item) {
    if (!inFlight.add(item.receiptId())) {
      return true;
    }
    if (!queues.offer(item)) {
      inFlight.remove(item.receiptId());
      return false;
    }
    return true;
  }

  /** Queues a failed batch again; what does not fit is read back from the store later. */
  private void requeue(List<WorkspaceQueues.Item> batch) {
    for (WorkspaceQueues.Item item : batch) {
      inFlight.remove(item.receiptId());
      if (!offer(item)) {
        pager.leftInStore(item.workspaceId(), true);
      }
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

  /**
   * When the signer expects to have signed a receipt of {@code workspaceId} submitted now (its
   * {@code ready_at_estimate}).
   */
  public Instant readyAtEstimate(String workspaceId) {
    return clock.instant().plusNanos(expectedDelayNanos(workspaceId, 1));
  }

  /**
   * How long the signer is expected to take to sign {@code receipts} more receipts of {@code
   * workspaceId}, counting those of the workspace before them (see {@link #expectedDelayNanos(long,
   * long, long, int, double)}).
   */
  long expectedDelayNanos(String workspaceId, int receipts) {
    return expectedDelayNanos(
        unsigned(workspaceId), receipts, backlog(), pendingBy.size(), nanosPerReceipt);
  }

  /**
   * The expected time to sign {@code receipts} more receipts of a workspace that has {@code own}
   * unsigned already, when {@code all} are unsigned of {@code workspaces} workspaces and one
   * signature takes {@code nanosPerReceipt} on each of the {@value #THREADS} signer threads: the
   * workspaces are served in turn, so until its receipts are signed each other workspace with
   * receipts left gets as many signed as it does, but no more than all there are; plus one batch
   * commit.
   */
  static long expectedDelayNanos(
      long own, int receipts, long all, int workspaces, double nanosPerReceipt) {
    long mine = Math.max(0, own) + receipts;
    long before = Math.min(Math.max(all, mine), mine * Math.max(1, workspaces));
    return (long) (before * nanosPerReceipt / THREADS) + 2_000_000L;
  }

  /**
   * Asks whether a request of {@code workspaceId} whose {@code receipts} were just submitted may
   * wait up to {@code wait} for their signatures: yes while fewer than {@link
   * Limits#waitsPerWorkspace()} of the workspace and {@link Limits#waits()} in all wait, and its
   * receipts are expected to be signed within {@code wait}. When it returns true the caller must
   * call {@link #endWait} once it stops waiting; when false it answers at once, receipts pending.
   */
  public boolean tryBeginWait(String workspaceId, int receipts, Duration wait) {
    // Its own receipts were counted by submit: the delay of the last of them.
    long expected = expectedDelayNanos(workspaceId, 0);
    if (receipts > 0 && expected > wait.toNanos()) {
      return false;
    }
    return waitLimiter.tryEnter(workspaceId);
  }

  /** Ends a wait that {@link #tryBeginWait} allowed. */
  public void endWait(String workspaceId) {
    waitLimiter.leave(workspaceId);
  }

  /** Requests waiting for signatures now (see {@link #tryBeginWait}). */
  public int waiting() {
    return waitLimiter.waiting();
  }

  /** Workspaces with receipts waiting to be signed, as this signer counts them. */
  public int workspacesPending() {
    return pendingBy.size();
  }

  /**
   * Seconds since the oldest pending receipt was issued, as the last {@link #sweep} (once a second)
   * found it in the store; 0 when none is pending.
   */
  public double oldestPendingSeconds() {
    Instant oldest = oldestPending;
    if (oldest == null) {
      return 0;
    }
    return Math.max(0, Duration.between(oldest, clock.instant()).toNanos() / 1e9);
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
    return queues.size();
  }

  /** Bytes the queued receipts' payloads take, as counted against {@link Limits#queuedBytes()}. */
  public long queuedBytes() {
    return queues.bytes();
  }

  public long signedTotal() {
    return signedTotal.get();
  }

  private void run() {
    List<WorkspaceQueues.Item> batch = new ArrayList<>(BATCH);
    while (true) {
      try {
        if (pager.paging()) {
          pager.pageIn();
        }
        if (queues.drainTo(batch, BATCH, 50, TimeUnit.MILLISECONDS) == 0) {
          if (stopping && !pager.paging()) {
            return;
          }
          continue;
        }
        gather(batch);
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
  private void gather(List<WorkspaceQueues.Item> batch) throws InterruptedException {
    long linger = store.batchLinger().toNanos();
    if (linger <= 0) {
      return;
    }
    long deadline = System.nanoTime() + linger;
    while (batch.size() < BATCH) {
      long left = deadline - System.nanoTime();
      if (left <= 0 || queues.drainTo(batch, BATCH, left, TimeUnit.NANOSECONDS) == 0) {
        return;
      }
    }
  }

  private void signBatch(List<WorkspaceQueues.Item> batch) {
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
      WorkspaceQueues.Item item = batch.get(i);
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
                WorkspaceQueues.Item item = batch.get(i);
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
                  WorkspaceQueues.Item item = batch.get(i);
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
    // A workspace's count drops before the count of all, so that a caller who sees the backlog
    // drained finds every workspace's drained too; both before the waiters hear of it.
    for (int i = 0; i < batch.size(); i++) {
      if (stored[i] != null) {
        signedFor(batch.get(i).workspaceId());
      }
    }
    signedTotal.addAndGet(won);
    pending.addAndGet(-won);
    for (int i = 0; i < batch.size(); i++) {
      WorkspaceQueues.Item item = batch.get(i);
      lagNanosObserver.accept(end - item.enqueuedNanos());
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
    if (pager.paging()) {
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
        signed.forEach(s -> signedFor(s.workspaceId()));
        signedTotal.addAndGet(signed.size());
        pending.addAndGet(-signed.size());
        for (Tx.Signed s : signed) {
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
        // count against their workspace.
        pendingBy.clear();
        oldestPending = null;
        return;
      }
      List<ReceiptRow> oldest = store.read(tx -> tx.pendingReceipts(null, 1));
      oldestPending = oldest.isEmpty() ? null : oldest.get(0).issuedAt();
      // A workspace near its limit is counted again from the store, so that receipts of it that
      // another instance signed (or submitted) are seen; the others are too few to matter.
      for (Map.Entry<String, AtomicLong> e : pendingBy.entrySet()) {
        if (e.getValue().get() >= lightLoad()) {
          String ws = e.getKey();
          long own = e.getValue().get();
          long inStore =
              store.read(tx -> tx.countPendingReceipts(ws, 2 * limits.workspaceBacklog()));
          e.getValue().addAndGet(inStore - own);
        }
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
