package dev.agentauth.server.signing;

import dev.agentauth.server.fatal.FatalErrors;
import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.server.store.SigningKeyRow;
import dev.agentauth.server.store.Store;
import dev.agentauth.server.store.Tx;
import dev.agentauth.verifier.signing.ReceiptSigner;
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
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Signs pending receipts asynchronously. Receipts are stored unsigned with their decision; the
 * request thread hands them here after commit; a signer thread signs them in batches with the
 * workspace key valid at each receipt's {@code issued_at} and records the signed form in one
 * transaction per batch. A signature is stored only if the receipt is still unsigned, so when
 * several signers race (a {@link #sweep}, another server instance) exactly one signature is stored
 * and counted. On start it resumes every receipt left pending in the store, so a restart never
 * loses one; {@link #sweep}, run every second, signs receipts pending for more than {@link
 * #SWEEP_AGE} (left by a stopped instance); on {@link #close()} it signs everything still queued
 * before returning.
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

  private final Store store;
  private final Clock clock;
  private final LongConsumer lagNanosObserver;
  private final LinkedBlockingQueue<Item> queue = new LinkedBlockingQueue<>();
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
      String workspaceId, String receiptId, Instant issuedAt, String payload, long enqueuedNanos) {}

  /**
   * @param lagNanosObserver told, for every receipt signed, how long it waited since enqueued
   */
  public SigningService(Store store, Clock clock, LongConsumer lagNanosObserver) {
    this.store = store;
    this.clock = clock;
    this.lagNanosObserver = lagNanosObserver;
    for (int i = 0; i < THREADS; i++) {
      Thread t = new Thread(this::run, "agentauth-signer-" + i);
      t.setDaemon(true);
      workers.add(t);
    }
  }

  /** Queues every receipt the store holds unsigned, then starts signing. */
  public void start() {
    String after = null;
    int resumed = 0;
    while (true) {
      String from = after;
      List<ReceiptRow> page = store.inTransaction(tx -> tx.pendingReceipts(from, 1000));
      if (page.isEmpty()) {
        break;
      }
      for (ReceiptRow r : page) {
        queue.add(
            new Item(
                r.workspaceId(), r.receiptId(), r.issuedAt(), r.payloadJson(), System.nanoTime()));
      }
      resumed += page.size();
      after = page.get(page.size() - 1).receiptId();
    }
    if (resumed > 0) {
      log.info("resuming signing of {} pending receipts", resumed);
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

  /** Hands newly committed, unsigned receipts to the signer. */
  public void submit(List<ReceiptRow> rows) {
    long now = System.nanoTime();
    for (ReceiptRow r : rows) {
      queue.add(new Item(r.workspaceId(), r.receiptId(), r.issuedAt(), r.payloadJson(), now));
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
    long backlog = queue.size() + 1L;
    long nanos = (long) (backlog * nanosPerReceipt) + 2_000_000L; // plus one batch commit
    return clock.instant().plusNanos(nanos);
  }

  /** Receipts waiting to be signed. */
  public int backlog() {
    return queue.size();
  }

  public long signedTotal() {
    return signedTotal.get();
  }

  private void run() {
    List<Item> batch = new ArrayList<>(BATCH);
    while (true) {
      try {
        Item first = queue.poll(50, TimeUnit.MILLISECONDS);
        if (first == null) {
          if (stopping) {
            return;
          }
          continue;
        }
        batch.add(first);
        queue.drainTo(batch, BATCH - 1);
        gather(batch);
        signBatch(batch);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Throwable e) {
        // Whatever failed — the store, a key, an Error — the thread goes on: the receipts stay
        // pending in the store and are retried after a pause.
        try {
          log.error("signing batch failed; will retry", e);
          queue.addAll(batch);
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
        store.inTransaction(
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
    for (int i = 0; i < batch.size(); i++) {
      Item item = batch.get(i);
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

  /** The signed receipt text: the canonical payload with the {@code signature} member appended. */
  static String withSignature(String canonicalPayload, String keyId, String value) {
    StringBuilder sb = new StringBuilder(canonicalPayload.length() + 128);
    sb.append(canonicalPayload, 0, canonicalPayload.length() - 1);
    sb.append(",\"signature\":{\"alg\":\"Ed25519\",\"key_id\":\"").append(keyId);
    sb.append("\",\"value\":\"").append(value).append("\"}}");
    return sb.toString();
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
    return withSignature(payload, key.keyId(), value);
  }

  /**
   * Stops taking new work, signs everything queued, and returns once the queue is empty or {@code
   * timeout} passed.
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
