package dev.agentauth.server.signing;

import java.util.HashMap;
import java.util.Map;

/**
 * Bounds the requests that wait on a request thread for their receipts' signatures ({@code
 * wait=true}): at most {@code perWorkspace} of one workspace and {@code total} of all at once, so
 * that waiting requests never hold more than {@code total} of the server's request threads and one
 * workspace never holds all of those. A request that finds no room does not wait: it is answered at
 * once with its receipts pending. Thread-safe.
 */
final class WaitLimiter {
  private final int perWorkspace;
  private final int total;

  /** Guarded by {@code this}: waiting requests of each workspace that has any. */
  private final Map<String, Integer> waiting = new HashMap<>();

  private int all;

  WaitLimiter(int perWorkspace, int total) {
    if (perWorkspace < 0 || total < 0) {
      throw new IllegalArgumentException(
          "wait bounds must not be negative, got " + perWorkspace + " and " + total);
    }
    this.perWorkspace = perWorkspace;
    this.total = total;
  }

  /** Counts one more waiting request of {@code workspaceId}, unless a bound is reached. */
  synchronized boolean tryEnter(String workspaceId) {
    int mine = waiting.getOrDefault(workspaceId, 0);
    if (all >= total || mine >= perWorkspace) {
      return false;
    }
    waiting.put(workspaceId, mine + 1);
    all++;
    return true;
  }

  /** One waiting request of {@code workspaceId} that {@link #tryEnter} admitted is done. */
  synchronized void leave(String workspaceId) {
    Integer mine = waiting.get(workspaceId);
    if (mine == null) {
      throw new IllegalStateException("no request of " + workspaceId + " is waiting");
    }
    if (mine == 1) {
      waiting.remove(workspaceId);
    } else {
      waiting.put(workspaceId, mine - 1);
    }
    all--;
  }

  synchronized int waiting(String workspaceId) {
    return waiting.getOrDefault(workspaceId, 0);
  }

  synchronized int waiting() {
    return all;
  }
}
