package dev.agentauth.server.http;

import dev.agentauth.server.service.ServiceException;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Bounds the work of one kind each workspace has in flight — its reads ({@code GET}s), so that one
 * workspace cannot hold every read connection of the store; its checks and new authorizations, so
 * that one workspace cannot fill the store's writer and the CPU with its receipts; its request
 * bodies arriving. Work beyond {@code perWorkspace} waits up to {@code wait} for one of its
 * workspace's own to end, then answers 429 {@code rate_limited} with {@code Retry-After: 1}. At
 * most {@code maxWaiting} more may wait at once; work beyond those is refused at once, so that one
 * workspace cannot park the server's request threads either. Counted per workspace, not per API
 * key, since a workspace can make keys at will. Thread-safe.
 */
final class WorkspaceLimiter {
  private final int perWorkspace;
  private final int maxWaiting;
  private final Duration wait;
  private final String what;
  private final ConcurrentHashMap<String, Semaphore> inFlight = new ConcurrentHashMap<>();

  WorkspaceLimiter(int perWorkspace, Duration wait) {
    this(perWorkspace, wait, 32);
  }

  WorkspaceLimiter(int perWorkspace, Duration wait, int maxWaiting) {
    this(perWorkspace, wait, maxWaiting, "reads");
  }

  /**
   * @param what what is counted, as the 429's detail names it ("reads")
   */
  WorkspaceLimiter(int perWorkspace, Duration wait, int maxWaiting, String what) {
    if (perWorkspace < 1) {
      throw new IllegalArgumentException("perWorkspace must be at least 1, got " + perWorkspace);
    }
    this.perWorkspace = perWorkspace;
    this.maxWaiting = maxWaiting;
    this.wait = wait;
    this.what = what;
  }

  /**
   * Runs {@code read} as one of {@code workspaceId}'s works of this kind in flight.
   *
   * @throws ServiceException 429 {@code rate_limited} when the workspace's works stayed at the
   *     limit for the whole wait
   */
  <T> T run(String workspaceId, Supplier<T> read) {
    Semaphore permits =
        inFlight.computeIfAbsent(workspaceId, w -> new Semaphore(perWorkspace, true));
    boolean acquired;
    try {
      acquired =
          permits.tryAcquire()
              || (permits.getQueueLength() < maxWaiting
                  && permits.tryAcquire(wait.toNanos(), TimeUnit.NANOSECONDS));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      acquired = false;
    }
    if (!acquired) {
      throw ServiceException.rateLimited(
          1,
          "this workspace already has "
              + perWorkspace
              + " "
              + what
              + " in flight, the most it may have at once");
    }
    try {
      return read.get();
    } finally {
      permits.release();
    }
  }

  /** Reads of {@code workspaceId} waiting for one in flight to end (an estimate; for tests). */
  int waiting(String workspaceId) {
    Semaphore permits = inFlight.get(workspaceId);
    return permits == null ? 0 : permits.getQueueLength();
  }
}
