package dev.agentauth.server.signing;

import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.server.store.SigningKeyRow;
import dev.agentauth.server.store.Store;
import dev.agentauth.verifier.signing.ReceiptSigner;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * transaction per batch. On start it resumes every receipt left pending in the store, so a restart
 * never loses one; on {@link #close()} it signs everything still queued before returning.
 */
public final class SigningService implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SigningService.class);
  private static final int BATCH = 64;

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
  private final Map<String, List<KeyedSigner>> signers = new ConcurrentHashMap<>();
  private final AtomicLong signedTotal = new AtomicLong();

  /** Incremented by every {@link #keysChanged}, so a load that overlapped one is not cached. */
  private final AtomicLong keyGeneration = new AtomicLong();

  private final List<Thread> workers = new ArrayList<>();
  private volatile boolean stopping;

  /** Exponentially weighted nanoseconds per signature, for {@code ready_at_estimate}. */
  private volatile double nanosPerReceipt = 40_000;

  private record Item(
      String workspaceId, String receiptId, Instant issuedAt, String payload, long enqueuedNanos) {}

  private record KeyedSigner(SigningKeyRow key, ReceiptSigner signer) {}

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

  /**
   * Forgets cached signers of a workspace. Call it inside the transaction that changes the keys (so
   * a reload racing with the change waits for its commit) and again after the commit. It never
   * blocks: keys are loaded outside any lock of this service, and a load that overlaps a call is
   * discarded rather than cached.
   */
  public void keysChanged(String workspaceId) {
    keyGeneration.incrementAndGet();
    signers.remove(workspaceId);
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
        signBatch(batch);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        // Leave the receipts pending in the store; they are retried after a pause.
        log.error("signing batch failed; will retry", e);
        queue.addAll(batch);
        java.util.concurrent.locks.LockSupport.parkNanos(200_000_000L);
        if (Thread.currentThread().isInterrupted()) {
          return;
        }
      } finally {
        batch.clear();
      }
    }
  }

  private void signBatch(List<Item> batch) {
    long start = System.nanoTime();
    List<String[]> signed = new ArrayList<>(batch.size());
    for (Item item : batch) {
      KeyedSigner ks = signerFor(item.workspaceId(), item.issuedAt());
      byte[] message = item.payload().getBytes(StandardCharsets.UTF_8);
      String value = ks.signer().signatureValue(message);
      signed.add(
          new String[] {
            item.workspaceId(),
            item.receiptId(),
            withSignature(item.payload(), ks.key().keyId(), value)
          });
    }
    store.inTransaction(
        tx -> {
          for (String[] s : signed) {
            tx.markSigned(s[0], s[1], s[2]);
          }
          return null;
        });
    long end = System.nanoTime();
    nanosPerReceipt = 0.8 * nanosPerReceipt + 0.2 * ((end - start) / (double) batch.size());
    signedTotal.addAndGet(batch.size());
    for (int i = 0; i < batch.size(); i++) {
      Item item = batch.get(i);
      lagNanosObserver.accept(end - item.enqueuedNanos());
      CompletableFuture<String> f = waiters.remove(item.receiptId());
      if (f != null) {
        f.complete(signed.get(i)[2]);
      }
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

  private KeyedSigner signerFor(String workspaceId, Instant issuedAt) {
    KeyedSigner chosen = pick(signersOf(workspaceId), issuedAt);
    if (chosen == null) { // a key rotated since we cached: reload once
      signers.remove(workspaceId);
      chosen = pick(signersOf(workspaceId), issuedAt);
    }
    if (chosen == null) {
      throw new IllegalStateException(
          "no signing key of workspace " + workspaceId + " is valid at " + issuedAt);
    }
    return chosen;
  }

  private static KeyedSigner pick(List<KeyedSigner> list, Instant issuedAt) {
    KeyedSigner best = null;
    for (KeyedSigner ks : list) {
      if (ks.key().validAt(issuedAt)
          && (best == null || ks.key().activeFrom().isAfter(best.key().activeFrom()))) {
        best = ks;
      }
    }
    return best;
  }

  /**
   * The cached signers of a workspace, loading them when absent. The store is read outside {@link
   * ConcurrentHashMap#computeIfAbsent}: a store transaction inside it would hold the map's bin lock
   * while waiting for the store, and a {@link #keysChanged} call from inside a transaction would
   * then wait for that bin lock — a deadlock. A load that overlapped a {@link #keysChanged} call
   * may have read the old keys, so it is not left in the cache.
   */
  private List<KeyedSigner> signersOf(String workspaceId) {
    while (true) {
      List<KeyedSigner> cached = signers.get(workspaceId);
      if (cached != null) {
        return cached;
      }
      long generation = keyGeneration.get();
      List<KeyedSigner> loaded = loadSigners(workspaceId);
      signers.putIfAbsent(workspaceId, loaded);
      if (keyGeneration.get() == generation) {
        return signers.getOrDefault(workspaceId, loaded);
      }
      signers.remove(workspaceId, loaded);
    }
  }

  private List<KeyedSigner> loadSigners(String workspaceId) {
    List<SigningKeyRow> rows = store.inTransaction(tx -> tx.signingKeys(workspaceId));
    List<KeyedSigner> out = new ArrayList<>(rows.size());
    for (SigningKeyRow row : rows) {
      out.add(new KeyedSigner(row, ReceiptSigner.fromSeed(row.keyId(), row.privateSeed())));
    }
    return List.copyOf(out);
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
