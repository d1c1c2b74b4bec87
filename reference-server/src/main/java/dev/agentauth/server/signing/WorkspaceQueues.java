package dev.agentauth.server.signing;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The receipts the signer holds in memory: one FIFO queue per workspace, served in turn, one
 * receipt of each workspace with receipts queued per turn, so that a workspace with thousands
 * queued delays another workspace's receipt by at most one receipt of its own per turn. Bounded
 * twice: all queues together hold at most {@code maxItems} receipts whose payloads take at most
 * {@code maxBytes}, and one workspace's queue at most {@code workspaceItems} and {@code
 * workspaceBytes}, so that one workspace cannot take the room every other one needs. An empty queue
 * always takes one receipt, however large. Thread-safe; every operation holds one lock for a time
 * proportional to the receipts it moves.
 */
final class WorkspaceQueues {
  /** Bytes counted for a queued receipt besides its payload's characters. */
  static final long ITEM_OVERHEAD = 256;

  /** A pending receipt to sign. */
  record Item(
      String workspaceId, String receiptId, Instant issuedAt, String payload, long enqueuedNanos) {
    long bytes() {
      return 2L * payload.length() + ITEM_OVERHEAD;
    }
  }

  private static final class Queue {
    final ArrayDeque<Item> items = new ArrayDeque<>();
    long bytes;
  }

  private final int maxItems;
  private final long maxBytes;
  private final int workspaceItems;
  private final long workspaceBytes;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition nonEmpty = lock.newCondition();

  /** Guarded by {@link #lock}: the queue of every workspace with receipts queued. */
  private final Map<String, Queue> queues = new HashMap<>();

  /** Guarded by {@link #lock}: those workspaces in the order they are served, the next first. */
  private final ArrayDeque<String> turn = new ArrayDeque<>();

  private int size;
  private long bytes;

  WorkspaceQueues(int maxItems, long maxBytes, int workspaceItems, long workspaceBytes) {
    if (maxItems < 1 || maxBytes < 1 || workspaceItems < 1 || workspaceBytes < 1) {
      throw new IllegalArgumentException("queue bounds must be positive");
    }
    this.maxItems = maxItems;
    this.maxBytes = maxBytes;
    this.workspaceItems = Math.min(workspaceItems, maxItems);
    this.workspaceBytes = Math.min(workspaceBytes, maxBytes);
  }

  /** Queues {@code item} at the end of its workspace's queue; false when a bound leaves no room. */
  boolean offer(Item item) {
    long b = item.bytes();
    lock.lock();
    try {
      Queue q = queues.get(item.workspaceId());
      int queued = q == null ? 0 : q.items.size();
      long queuedBytes = q == null ? 0 : q.bytes;
      if (size >= maxItems
          || queued >= workspaceItems
          || (bytes > 0 && bytes + b > maxBytes)
          || (queuedBytes > 0 && queuedBytes + b > workspaceBytes)) {
        return false;
      }
      if (q == null) {
        q = new Queue();
        queues.put(item.workspaceId(), q);
        turn.addLast(item.workspaceId());
      }
      q.items.addLast(item);
      q.bytes += b;
      size++;
      bytes += b;
      nonEmpty.signal();
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Moves receipts into {@code batch} until it holds {@code max}, one of each workspace in turn,
   * waiting up to {@code timeout} for the first when none is queued.
   *
   * @return how many were moved
   */
  int drainTo(List<Item> batch, int max, long timeout, TimeUnit unit) throws InterruptedException {
    long nanos = unit.toNanos(timeout);
    lock.lockInterruptibly();
    try {
      while (size == 0) {
        if (nanos <= 0) {
          return 0;
        }
        nanos = nonEmpty.awaitNanos(nanos);
      }
      int moved = 0;
      while (batch.size() < max && !turn.isEmpty()) {
        String ws = turn.pollFirst();
        Queue q = queues.get(ws);
        Item item = q.items.pollFirst();
        long b = item.bytes();
        q.bytes -= b;
        size--;
        bytes -= b;
        batch.add(item);
        moved++;
        if (q.items.isEmpty()) {
          queues.remove(ws);
        } else {
          turn.addLast(ws);
        }
      }
      return moved;
    } finally {
      lock.unlock();
    }
  }

  /** How many more receipts of {@code workspaceId} fit, by count. */
  int room(String workspaceId) {
    lock.lock();
    try {
      Queue q = queues.get(workspaceId);
      int queued = q == null ? 0 : q.items.size();
      return Math.max(0, Math.min(maxItems - size, workspaceItems - queued));
    } finally {
      lock.unlock();
    }
  }

  /** The most receipts one workspace may have queued. */
  int workspaceItems() {
    return workspaceItems;
  }

  /** Receipts queued, of every workspace. */
  int size() {
    lock.lock();
    try {
      return size;
    } finally {
      lock.unlock();
    }
  }

  /** Bytes the queued receipts take, as counted against the bound. */
  long bytes() {
    lock.lock();
    try {
      return bytes;
    } finally {
      lock.unlock();
    }
  }

  /** Receipts of {@code workspaceId} queued. */
  int size(String workspaceId) {
    lock.lock();
    try {
      Queue q = queues.get(workspaceId);
      return q == null ? 0 : q.items.size();
    } finally {
      lock.unlock();
    }
  }
}
