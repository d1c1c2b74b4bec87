package dev.agentauth.server.http;

import dev.agentauth.server.service.ServiceException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * Fair admission of the work that makes receipts (checks and new authorizations: parsing, deciding
 * and committing). At most {@link Limits#inFlight()} such works run at once, of all workspaces. A
 * work that finds a permit free runs at once on the caller's thread. Otherwise it is queued behind
 * its workspace's earlier ones, and permits are handed out to the queued workspaces in turn, one
 * work each: a workspace with one work waiting waits for at most one work of every other waiting
 * workspace, not for another workspace's whole queue. A queued work holds no thread: it runs on
 * {@code executor} when its permit is granted.
 *
 * <p>What waits is bounded: per workspace {@link Limits#queuedPerWorkspace()} works and {@link
 * Limits#queuedBytesPerWorkspace()} bytes of request bodies (beyond them 429 {@code rate_limited}
 * at once), in all {@link Limits#queuedBytes()} bytes (beyond them 503 at once), and a work queued
 * for {@link Limits#queueTimeout()} is dropped and answered 503; all with {@code Retry-After}.
 *
 * <p>Thread-safe. Everything done under the lock is constant time but for dropping a timed-out work
 * (linear in its workspace's queue, bounded by the cap).
 */
public final class ReceiptGate {

  /**
   * Works in flight unless configured: enough for SQLite's writer to commit a good batch of checks
   * with one fsync (it takes every transaction queued when it starts a batch), few enough that one
   * workspace's flood does not hold the CPU for long ahead of another's turn. Measured on 2 cores
   * (benchmarks/README.md, "Fair turns for checks"): 8 kept the SQLite check rate of no gate and
   * held a bystander's p99 under 200 ms in the wait=true flood; 4 did better for the bystander but
   * cost about a quarter of the rate, 16 did worse for the bystander.
   */
  public static final int DEFAULT_IN_FLIGHT = 8;

  /**
   * The gate's bounds; see docs/server.md "Limits".
   *
   * @param inFlight works running at once, of all workspaces
   * @param queuedPerWorkspace works of one workspace that may wait for a permit
   * @param queuedBytesPerWorkspace request-body bytes of one workspace's waiting works
   * @param queuedBytes request-body bytes of all waiting works
   * @param queueTimeout the longest a work waits for its permit before it is answered 503
   */
  public record Limits(
      int inFlight,
      int queuedPerWorkspace,
      long queuedBytesPerWorkspace,
      long queuedBytes,
      Duration queueTimeout) {

    /** 16 in flight; 1,024 works and 32 MiB queued per workspace, 128 MiB in all; 10 s. */
    public static final Limits DEFAULT =
        new Limits(DEFAULT_IN_FLIGHT, 1_024, 32L << 20, 128L << 20, Duration.ofSeconds(10));

    public Limits {
      if (inFlight < 1 || queuedPerWorkspace < 0) {
        throw new IllegalArgumentException(
            "checks in flight must be at least 1 and checks queued per workspace at least 0, got "
                + inFlight
                + " and "
                + queuedPerWorkspace);
      }
      if (queuedBytesPerWorkspace < 0 || queuedBytes < 0) {
        throw new IllegalArgumentException(
            "queued bytes must not be negative, got "
                + queuedBytesPerWorkspace
                + " per workspace and "
                + queuedBytes
                + " in all");
      }
      if (queueTimeout == null || queueTimeout.isNegative() || queueTimeout.isZero()) {
        throw new IllegalArgumentException(
            "the queue timeout must be positive, got " + queueTimeout);
      }
    }

    /** These bounds with {@code inFlight} works at once. */
    public Limits withInFlight(int inFlight) {
      return new Limits(
          inFlight, queuedPerWorkspace, queuedBytesPerWorkspace, queuedBytes, queueTimeout);
    }
  }

  /** One queued work. Its fields but {@code done} and {@code timeout} never change. */
  private static final class Waiter {
    final String workspaceId;
    final long bytes;
    final long enqueuedNanos = System.nanoTime();
    final Runnable run;
    final CompletableFuture<?> result;
    boolean done; // guarded by the gate's lock: granted or dropped
    volatile ScheduledFuture<?> timeout;

    Waiter(String workspaceId, long bytes, Runnable run, CompletableFuture<?> result) {
      this.workspaceId = workspaceId;
      this.bytes = bytes;
      this.run = run;
      this.result = result;
    }
  }

  /** One workspace's waiting works, oldest first, and their bytes. */
  private static final class Queue {
    final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    long bytes;
  }

  private final Limits limits;
  private final Executor executor;
  private final ScheduledExecutorService timer;
  private final LongConsumer waitNanosObserver;

  private final Object lock = new Object();
  private int free; // permits free; while any is free, nothing is queued
  private final Map<String, Queue> queues = new HashMap<>();
  private final ArrayDeque<String> turn = new ArrayDeque<>(); // workspaces with waiters, in order
  private int queued;
  private long queuedBytes;
  private long admittedAtOnce;
  private long admittedAfterWait;
  private long refusedWorkspace;
  private long refusedAll;
  private long timedOut;

  /**
   * @param executor runs the works granted a permit after waiting; it should have {@code inFlight}
   *     threads, so that every granted work runs at once
   * @param timer drops works queued longer than the timeout
   * @param waitNanosObserver told how long each granted work waited (0 for one run at once)
   */
  ReceiptGate(
      Limits limits,
      Executor executor,
      ScheduledExecutorService timer,
      LongConsumer waitNanosObserver) {
    this.limits = limits;
    this.executor = executor;
    this.timer = timer;
    this.waitNanosObserver = waitNanosObserver;
    this.free = limits.inFlight();
  }

  Limits limits() {
    return limits;
  }

  /**
   * Runs {@code work} of {@code workspaceId} with a permit. When one is free, the work runs now on
   * this thread, and what it throws is thrown here; the future returned is then done. Otherwise the
   * work is queued and runs on the executor once its permit is granted; the future returned is
   * completed there with its value or what it threw, or with a 503 when it waited too long.
   *
   * @param bytes the request body's size, counted against the queued-bytes bounds
   * @throws ServiceException 429 {@code rate_limited} when the workspace's queue is full, 503 when
   *     the queued bytes of all are at their bound
   */
  <T> CompletableFuture<T> run(String workspaceId, long bytes, Supplier<T> work) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Waiter waiter = new Waiter(workspaceId, bytes, () -> runGranted(work, result), result);
    ServiceException refused = null;
    boolean now = false;
    synchronized (lock) {
      if (free > 0) {
        free--;
        admittedAtOnce++;
        now = true;
      } else {
        Queue q = queues.get(workspaceId);
        int n = q == null ? 0 : q.waiters.size();
        long b = q == null ? 0 : q.bytes;
        if (n >= limits.queuedPerWorkspace() || b + bytes > limits.queuedBytesPerWorkspace()) {
          refusedWorkspace++;
          refused =
              ServiceException.rateLimited(
                  1,
                  "this workspace already has "
                      + n
                      + " checks and new authorizations waiting to run, the most it may have"
                      + " (count "
                      + limits.queuedPerWorkspace()
                      + ", body bytes "
                      + limits.queuedBytesPerWorkspace()
                      + ")");
        } else if (queuedBytes + bytes > limits.queuedBytes()) {
          refusedAll++;
          refused =
              ServiceException.unavailable(
                  "the server has too many checks and new authorizations waiting to run; retry"
                      + " after 1 s",
                  1);
        } else {
          if (q == null) {
            q = new Queue();
            queues.put(workspaceId, q);
            turn.addLast(workspaceId);
          }
          q.waiters.addLast(waiter);
          q.bytes += bytes;
          queued++;
          queuedBytes += bytes;
        }
      }
    }
    if (refused != null) {
      throw refused;
    }
    if (now) {
      waitNanosObserver.accept(0);
      try {
        result.complete(work.get());
      } finally {
        release();
      }
      return result;
    }
    waiter.timeout =
        timer.schedule(() -> expire(waiter), limits.queueTimeout().toNanos(), TimeUnit.NANOSECONDS);
    return result;
  }

  /**
   * Runs a granted work on the executor's thread, hands its permit on, and only then completes its
   * future: what depends on the future (making the answer) does not hold the permit.
   */
  private <T> void runGranted(Supplier<T> work, CompletableFuture<T> result) {
    T value = null;
    Throwable failure = null;
    try {
      value = work.get();
    } catch (Throwable t) {
      failure = t;
    } finally {
      release();
    }
    if (failure != null) {
      result.completeExceptionally(failure);
    } else {
      result.complete(value);
    }
  }

  /** Hands the permit of a finished work to the next workspace in turn, or frees it. */
  void release() {
    Waiter next;
    synchronized (lock) {
      next = next();
      if (next == null) {
        free++;
        return;
      }
      admittedAfterWait++;
    }
    grant(next);
  }

  /** Takes the first waiter of the workspace whose turn it is; null when none waits. */
  private Waiter next() {
    String ws = turn.pollFirst();
    if (ws == null) {
      return null;
    }
    Queue q = queues.get(ws);
    Waiter w = q.waiters.pollFirst();
    q.bytes -= w.bytes;
    queued--;
    queuedBytes -= w.bytes;
    if (q.waiters.isEmpty()) {
      queues.remove(ws);
    } else {
      turn.addLast(ws);
    }
    w.done = true;
    return w;
  }

  private void grant(Waiter w) {
    ScheduledFuture<?> t = w.timeout;
    if (t != null) {
      t.cancel(false);
    }
    waitNanosObserver.accept(System.nanoTime() - w.enqueuedNanos);
    try {
      executor.execute(w.run);
    } catch (RejectedExecutionException e) {
      w.result.completeExceptionally(
          ServiceException.unavailable("the server is stopping; retry after 1 s", 1));
      release();
    }
  }

  /** Drops {@code w} if it still waits, answering 503. */
  private void expire(Waiter w) {
    synchronized (lock) {
      if (w.done) {
        return;
      }
      w.done = true;
      Queue q = queues.get(w.workspaceId);
      q.waiters.remove(w);
      q.bytes -= w.bytes;
      queued--;
      queuedBytes -= w.bytes;
      if (q.waiters.isEmpty()) {
        queues.remove(w.workspaceId);
        turn.remove(w.workspaceId);
      }
      timedOut++;
    }
    w.result.completeExceptionally(
        ServiceException.unavailable(
            "this check or new authorization waited "
                + limits.queueTimeout().toMillis()
                + " ms for its turn to run, the most it may; the server is busy; retry after 1 s",
            1));
  }

  // ---- counters (metrics and tests)

  /** Works waiting for a permit now. */
  public int queued() {
    synchronized (lock) {
      return queued;
    }
  }

  /** Request-body bytes of the works waiting now. */
  public long queuedBytes() {
    synchronized (lock) {
      return queuedBytes;
    }
  }

  /** Works running now (permits held). */
  public int inFlight() {
    synchronized (lock) {
      return limits.inFlight() - free;
    }
  }

  /** Works of {@code workspaceId} waiting now. */
  public int queued(String workspaceId) {
    synchronized (lock) {
      Queue q = queues.get(workspaceId);
      return q == null ? 0 : q.waiters.size();
    }
  }

  public long admittedAtOnce() {
    synchronized (lock) {
      return admittedAtOnce;
    }
  }

  public long admittedAfterWait() {
    synchronized (lock) {
      return admittedAfterWait;
    }
  }

  /** Works refused 429 because their workspace's queue was full. */
  public long refusedWorkspace() {
    synchronized (lock) {
      return refusedWorkspace;
    }
  }

  /** Works refused 503 because the queued bytes of all were at their bound. */
  public long refusedAll() {
    synchronized (lock) {
      return refusedAll;
    }
  }

  /** Works dropped with a 503 after waiting the queue timeout. */
  public long timedOut() {
    synchronized (lock) {
      return timedOut;
    }
  }
}
