package dev.agentauth.server.log;

import dev.agentauth.server.store.LogTx;
import dev.agentauth.server.store.LogTx.Node;
import dev.agentauth.server.store.LogTx.NodeId;
import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.server.store.SigningKeyRow;
import dev.agentauth.server.store.Store;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends signed receipts to their workspace's log (decisions.md §18), on its own thread {@code
 * agentauth-log}. The signer {@linkplain #wake wakes} it for each workspace whose signatures it
 * stored; a timer every {@link #TICK} also looks for signed receipts not yet in a log (stored by
 * another instance, or left by a stopped one) and for grown logs without a checkpoint.
 *
 * <p>Each batch — up to {@link #BATCH} receipts of one workspace in receipt id order — is prepared
 * outside any write: a read transaction takes the log's size, the receipts and the O(log n) stored
 * subtree hashes on the tree's right edge; the leaf hashes, the subtrees they complete, the new
 * root and (when due) the signed checkpoint are computed without holding anything; then one short
 * write transaction appends, re-checking the size it started from ({@link LogTx#appendLog}). If
 * another integrator appended first, nothing is written and the batch is prepared again. Workspaces
 * take turns, one batch each.
 *
 * <p>Checkpoints: after a batch, if the workspace's newest checkpoint is at least {@link
 * #CHECKPOINT_INTERVAL} old (by the real clock), the batch's transaction issues one for the new
 * size; otherwise one is issued by a later tick.
 */
public final class LogIntegrator implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LogIntegrator.class);

  /** Receipts appended per transaction, at most. */
  public static final int BATCH = 1000;

  /** Checkpoints of one workspace are at least this far apart. */
  public static final Duration CHECKPOINT_INTERVAL = Duration.ofSeconds(1);

  /** How often the fallback scan runs. */
  static final Duration TICK = Duration.ofMillis(250);

  /**
   * After a pass that appended receipts, the integrator rests this long before the next (unless a
   * workspace filled a whole batch): under load a pass then appends the receipts of many signing
   * batches at once, so the per-pass reads and the write job cost the store's writer and the cores
   * little per receipt, while a receipt still reaches its log well within a second.
   */
  static final Duration COALESCE = Duration.ofMillis(100);

  private static final int SCAN_PAGE = 1000;

  private final Store store;
  private final Supplier<Instant> keyClock;
  private final Clock realClock;
  private final CheckpointSigner signer;
  private final LongConsumer lagNanos;
  private final Set<String> dirty = ConcurrentHashMap.newKeySet();
  private final Map<String, Long> firstSeenNanos = new ConcurrentHashMap<>();
  private final Set<String> checkpointDue = ConcurrentHashMap.newKeySet();
  private final Semaphore signal = new Semaphore(0);
  private final java.util.concurrent.CountDownLatch stopped =
      new java.util.concurrent.CountDownLatch(1);

  /** When this integrator last saw or issued each workspace's newest checkpoint (real clock). */
  private final Map<String, Instant> lastCheckpointAt = new ConcurrentHashMap<>();

  private final AtomicLong integrated = new AtomicLong();
  private volatile boolean stopping;
  private Thread thread;

  /**
   * @param keyClock the server's clock, which picks the signing key (as it does for receipts)
   * @param realClock the real clock, which spaces checkpoints
   * @param lagNanos observes, per batch, nanoseconds from when this integrator learned of its
   *     workspace's receipts to their commit in the log
   */
  public LogIntegrator(
      Store store,
      Supplier<Instant> keyClock,
      Clock realClock,
      CheckpointSigner signer,
      LongConsumer lagNanos) {
    this.store = store;
    this.keyClock = keyClock;
    this.realClock = realClock;
    this.signer = signer;
    this.lagNanos = lagNanos;
  }

  /** Starts the integrating thread. */
  public synchronized void start() {
    if (thread != null) {
      throw new IllegalStateException("already started");
    }
    thread = new Thread(this::run, "agentauth-log");
    thread.setDaemon(true);
    thread.start();
  }

  /** Signatures of {@code workspaceId}'s receipts were stored: integrate them soon. Cheap. */
  public void wake(String workspaceId) {
    firstSeenNanos.putIfAbsent(workspaceId, System.nanoTime());
    if (dirty.add(workspaceId)) {
      signal.release();
    }
  }

  /** Receipts this process appended to a log. */
  public long integratedTotal() {
    return integrated.get();
  }

  /** Workspaces with receipts known to wait for the log. */
  public int workspacesWaiting() {
    return dirty.size();
  }

  private void run() {
    long nextScan = 0;
    while (!stopping) {
      try {
        signal.tryAcquire(TICK.toMillis(), TimeUnit.MILLISECONDS);
        signal.drainPermits();
      } catch (InterruptedException e) {
        return;
      }
      if (stopping) {
        return;
      }
      try {
        if (System.nanoTime() - nextScan >= 0) {
          scan();
          nextScan = System.nanoTime() + TICK.toNanos();
        }
        long before = integrated.get();
        boolean backlog = drainOnce();
        issueDueCheckpoints();
        if (integrated.get() != before
            && !backlog
            && stopped.await(COALESCE.toMillis(), TimeUnit.MILLISECONDS)) {
          return;
        }
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        log.warn("integrating receipts into the log failed; will retry", e);
      }
    }
  }

  /** Finds workspaces with unlogged receipts or without a checkpoint of their size. */
  void scan() {
    String after = null;
    while (true) {
      String from = after;
      List<String> page = store.read(tx -> tx.unloggedWorkspaces(from, SCAN_PAGE));
      for (String ws : page) {
        wake(ws);
      }
      if (page.size() < SCAN_PAGE) {
        break;
      }
      after = page.get(page.size() - 1);
    }
    checkpointDue.addAll(store.read(tx -> tx.uncheckpointedWorkspaces(SCAN_PAGE)));
  }

  /**
   * One batch for each workspace known to wait, in turn; those with more stay waiting. True when
   * one of them filled a whole batch (or lost a race to another integrator): more is waiting now.
   */
  boolean drainOnce() {
    boolean backlog = false;
    for (String ws : List.copyOf(dirty)) {
      if (stopping) {
        return backlog;
      }
      dirty.remove(ws);
      boolean more;
      try {
        more = integrate(ws);
      } catch (RuntimeException e) {
        dirty.add(ws);
        throw e;
      }
      if (more) {
        dirty.add(ws);
        backlog = true;
      } else {
        firstSeenNanos.remove(ws);
      }
    }
    return backlog;
  }

  /**
   * Everything until no receipt of any known workspace waits (tests, and the drain at close).
   * Returns how many receipts it appended.
   */
  public long integrateAll() {
    long before = integrated.get();
    scan();
    while (!dirty.isEmpty()) {
      drainOnce();
    }
    issueDueCheckpoints();
    return integrated.get() - before;
  }

  private record Prepared(
      long size,
      List<ReceiptRow> receipts,
      Map<NodeId, byte[]> frontier,
      Optional<LogTx.Checkpoint> last,
      List<SigningKeyRow> keys) {}

  /**
   * Appends one batch of the workspace's unlogged receipts; true when more may wait (a full batch,
   * or another integrator appended first).
   */
  boolean integrate(String ws) {
    Prepared p =
        store.read(
            tx -> {
              long size = tx.logSize(ws);
              List<ReceiptRow> rows = tx.unloggedReceipts(ws, BATCH);
              if (rows.isEmpty()) {
                return null;
              }
              return new Prepared(
                  size,
                  rows,
                  tx.logNodes(ws, LogTree.decompose(0, size)),
                  tx.latestCheckpoint(ws),
                  tx.signingKeys(ws));
            });
    if (p == null) {
      return false;
    }
    List<String> ids = new ArrayList<>(p.receipts().size());
    List<byte[]> leaves = new ArrayList<>(p.receipts().size());
    for (ReceiptRow r : p.receipts()) {
      ids.add(r.receiptId());
      leaves.add(LeafHashes.of(r.signedJson()));
    }
    List<Node> nodes = LogTree.appended(p.size(), leaves, p.frontier());
    long newSize = p.size() + ids.size();
    Map<NodeId, byte[]> known = new HashMap<>(p.frontier());
    for (Node n : nodes) {
      known.put(n.id(), n.hash());
    }
    byte[] root = LogTree.hash(new LogTree.Range(0, newSize), known);
    Instant now = realClock.instant();
    p.last().ifPresent(c -> lastCheckpointAt.merge(ws, c.at(), LogIntegrator::later));
    LogTx.Checkpoint checkpoint =
        checkpointAllowed(p.last(), now)
            ? new LogTx.Checkpoint(
                ws, newSize, root, signer.sign(ws, newSize, root, p.keys(), keyClock.get()), now)
            : null;
    boolean appended =
        store.inTransaction(
            tx -> {
              if (!tx.appendLog(ws, p.size(), ids, nodes)) {
                return false;
              }
              if (checkpoint != null) {
                issue(tx, checkpoint);
              }
              return true;
            });
    if (!appended) {
      return true;
    }
    integrated.addAndGet(ids.size());
    Long seen = firstSeenNanos.get(ws);
    if (seen != null) {
      lagNanos.accept(System.nanoTime() - seen);
    }
    if (checkpoint == null) {
      checkpointDue.add(ws);
    } else {
      lastCheckpointAt.merge(ws, checkpoint.at(), LogIntegrator::later);
    }
    return ids.size() == BATCH;
  }

  private static Instant later(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }

  private static boolean checkpointAllowed(Optional<LogTx.Checkpoint> last, Instant now) {
    return last.isEmpty() || !now.isBefore(last.get().at().plus(CHECKPOINT_INTERVAL));
  }

  /** Stores {@code c} unless another checkpoint of the workspace is too recent. */
  private static boolean issue(dev.agentauth.server.store.Tx tx, LogTx.Checkpoint c) {
    tx.lock("log-checkpoint:" + c.workspaceId());
    if (!checkpointAllowed(tx.latestCheckpoint(c.workspaceId()), c.at())) {
      return false;
    }
    return tx.insertCheckpoint(c);
  }

  /** Issues the checkpoints a batch could not issue (too soon after the previous one). */
  void issueDueCheckpoints() {
    for (String ws : List.copyOf(checkpointDue)) {
      if (stopping) {
        return;
      }
      Instant now = realClock.instant();
      Instant seen = lastCheckpointAt.get(ws);
      if (seen != null && now.isBefore(seen.plus(CHECKPOINT_INTERVAL))) {
        continue; // not due yet: no need to read the log's head
      }
      record Head(
          long size, byte[] root, Optional<LogTx.Checkpoint> last, List<SigningKeyRow> keys) {}
      Head h =
          store.read(
              tx -> {
                long size = tx.logSize(ws);
                Optional<LogTx.Checkpoint> last = tx.latestCheckpoint(ws);
                if (size == 0 || (last.isPresent() && last.get().treeSize() >= size)) {
                  return null;
                }
                LogTree.Range all = new LogTree.Range(0, size);
                byte[] root = LogTree.hash(all, tx.logNodes(ws, LogTree.decompose(0, size)));
                return new Head(size, root, last, tx.signingKeys(ws));
              });
      if (h == null) {
        checkpointDue.remove(ws);
        continue;
      }
      h.last().ifPresent(c -> lastCheckpointAt.merge(ws, c.at(), LogIntegrator::later));
      if (!checkpointAllowed(h.last(), now)) {
        continue;
      }
      LogTx.Checkpoint c =
          new LogTx.Checkpoint(
              ws,
              h.size(),
              h.root(),
              signer.sign(ws, h.size(), h.root(), h.keys(), keyClock.get()),
              now);
      store.inTransaction(tx -> issue(tx, c));
      lastCheckpointAt.merge(ws, c.at(), LogIntegrator::later);
      checkpointDue.remove(ws);
    }
  }

  /** Stops the thread (what is not yet in a log is integrated by the next start). */
  @Override
  public void close() {
    stopping = true;
    stopped.countDown();
    Thread t;
    synchronized (this) {
      t = thread;
    }
    if (t != null) {
      signal.release();
      try {
        t.join(TimeUnit.SECONDS.toMillis(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
