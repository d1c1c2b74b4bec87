package dev.agentauth.server.signing;

import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.server.store.Store;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.ObjLongConsumer;
import java.util.function.Predicate;

/**
 * Reads pending receipts that did not fit in the signer's memory back from the store, fairly: each
 * workspace with receipts left in the store has its own cursor, and the pager reads a page of each
 * such workspace in turn whose queue has room, so a workspace with a long backlog in the store does
 * not stand before another's receipts. At start it first looks up the workspaces that have pending
 * receipts in the store (one index seek each). One signer thread pages at a time; {@link
 * #leftInStore} and {@link #isSpilled} may be called from any thread.
 */
final class BacklogPager {
  /** The most pending receipts read from the store at once. */
  private static final int PAGE = 512;

  /** The most workspaces with pending receipts looked up in the store at once. */
  private static final int WORKSPACE_PAGE = 256;

  private final Store store;
  private final Clock clock;
  private final WorkspaceQueues queues;
  private final Predicate<WorkspaceQueues.Item> offer;
  private final ObjLongConsumer<String> unsignedFound;
  private final long countCap;

  /**
   * Workspaces with pending receipts in the store that are not queued, which the pager reads back.
   * An entry changes only inside the map's atomic {@code compute} methods, except its cursor, which
   * only the pager touches.
   */
  private final ConcurrentHashMap<String, Spill> spilled = new ConcurrentHashMap<>();

  /** Whether the store may hold pending receipts of workspaces the pager does not know of. */
  private volatile boolean discover;

  /** Held by the worker reading pending receipts from the store; guards the cursors. */
  private final ReentrantLock lock = new ReentrantLock();

  /** Guarded by {@link #lock}: the last workspace id {@link #discover} found. */
  private String discoverCursor;

  /** Guarded by {@link #lock}: which spilled workspace is read first next time. */
  private int pagerTurn;

  /** A workspace whose pending receipts the pager reads back from the store. */
  private static final class Spill {
    /** Receipts left in the store, ever; tells the pager that more arrived while it read. */
    long left;

    /** Whether one was left behind the cursor (a failed batch): read again from the first. */
    boolean rescan;

    /** The last receipt id the pager read; only the pager touches it. */
    String cursor;
  }

  /**
   * @param offer queues a receipt read back unless it is queued already; false when it has no room
   * @param unsignedFound told each workspace found with pending receipts at start and how many
   * @param countCap how far those are counted
   */
  BacklogPager(
      Store store,
      Clock clock,
      WorkspaceQueues queues,
      Predicate<WorkspaceQueues.Item> offer,
      ObjLongConsumer<String> unsignedFound,
      long countCap) {
    this.store = store;
    this.clock = clock;
    this.queues = queues;
    this.offer = offer;
    this.unsignedFound = unsignedFound;
    this.countCap = countCap;
  }

  /** Has the next {@link #pageIn} look up every workspace with pending receipts in the store. */
  void discoverAll() {
    discover = true;
  }

  /** Whether receipts of {@code workspaceId} wait in the store: new ones then wait behind them. */
  boolean isSpilled(String workspaceId) {
    return spilled.containsKey(workspaceId);
  }

  /** Whether the store holds pending receipts the pager is to read back. */
  boolean paging() {
    return discover || !spilled.isEmpty();
  }

  /**
   * Notes that a pending receipt of {@code workspaceId} was left in the store, for the pager to
   * read; {@code behindCursor} when it may lie before where the pager has read to.
   */
  void leftInStore(String workspaceId, boolean behindCursor) {
    spilled.compute(
        workspaceId,
        (ws, s) -> {
          Spill spill = s == null ? new Spill() : s;
          spill.left++;
          spill.rescan |= behindCursor;
          return spill;
        });
  }

  /**
   * Tops the queues up from the store's pending receipts: first looks up the workspaces that have
   * any when the store may hold some of unknown workspaces (at start), then reads a page of each
   * spilled workspace in turn whose queue has room for one, in receipt id order after the last one
   * read; forgets a workspace when a read finds no more and none was left in the store meanwhile.
   * One worker pages at a time.
   */
  void pageIn() {
    if (!lock.tryLock()) {
      return;
    }
    try {
      if (discover) {
        discover();
      }
      List<String> workspaces = new ArrayList<>(spilled.keySet());
      int n = workspaces.size();
      int first = n == 0 ? 0 : Math.floorMod(pagerTurn++, n);
      for (int i = 0; i < n && !Thread.currentThread().isInterrupted(); i++) {
        pageIn(workspaces.get((first + i) % n));
      }
    } finally {
      lock.unlock();
    }
  }

  /** Reads one page of {@code workspaceId}'s pending receipts, if its queue has room for one. */
  private void pageIn(String workspaceId) {
    Spill spill = spilled.get(workspaceId);
    if (spill == null) {
      return;
    }
    int want = Math.min(PAGE, queues.room(workspaceId));
    if (want < Math.min(PAGE, Math.max(1, queues.workspaceItems() / 2))) {
      return; // enough queued; read more when it has drained
    }
    long[] leftBefore = new long[1];
    boolean[] rescan = new boolean[1];
    spilled.computeIfPresent(
        workspaceId,
        (ws, s) -> {
          leftBefore[0] = s.left;
          rescan[0] = s.rescan;
          s.rescan = false;
          return s;
        });
    if (rescan[0]) {
      spill.cursor = null;
    }
    String from = spill.cursor;
    List<ReceiptRow> page = store.read(tx -> tx.pendingReceipts(workspaceId, from, want));
    long now = System.nanoTime();
    Instant wall = clock.instant();
    for (ReceiptRow r : page) {
      // The lag counts from the receipt's issue, as far as the clock tells.
      long waited = Math.max(0, Duration.between(r.issuedAt(), wall).toNanos());
      WorkspaceQueues.Item item =
          new WorkspaceQueues.Item(
              r.workspaceId(), r.receiptId(), r.issuedAt(), r.payloadJson(), now - waited);
      if (!offer.test(item)) {
        return; // no more room; read on from here later
      }
      spill.cursor = r.receiptId();
    }
    if (page.size() < want) {
      // Read to the end: done with the workspace, unless more were left in the store meanwhile.
      spilled.computeIfPresent(
          workspaceId, (ws, s) -> s.left == leftBefore[0] && !s.rescan ? null : s);
    }
  }

  /**
   * Looks up, a page at a time, the workspaces with pending receipts in the store and has the pager
   * read them back; counts each one's unsigned receipts (up to {@code countCap}) so that the signer
   * holds back a workspace that a previous run left with a long backlog.
   */
  private void discover() {
    String from = discoverCursor;
    List<String> found = store.read(tx -> tx.pendingWorkspaces(from, WORKSPACE_PAGE));
    for (String ws : found) {
      long counted = store.read(tx -> tx.countPendingReceipts(ws, countCap));
      unsignedFound.accept(ws, counted);
      leftInStore(ws, true);
      discoverCursor = ws;
    }
    if (found.size() < WORKSPACE_PAGE) {
      discover = false;
      discoverCursor = null;
    }
  }
}
