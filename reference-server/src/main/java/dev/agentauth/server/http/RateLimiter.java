package dev.agentauth.server.http;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-API-key token buckets: {@code ratePerSecond} requests per second with a burst of the same
 * size. A rate of 0 disables limiting. Measured on the monotonic system timer, not the (possibly
 * test) service clock.
 */
final class RateLimiter {
  private final int ratePerSecond;
  private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();

  RateLimiter(int ratePerSecond) {
    this.ratePerSecond = ratePerSecond;
  }

  private static final class Bucket {
    double tokens;
    long last;

    Bucket(double tokens, long last) {
      this.tokens = tokens;
      this.last = last;
    }
  }

  boolean tryAcquire(String key) {
    if (ratePerSecond <= 0) {
      return true;
    }
    long now = System.nanoTime();
    Bucket b = buckets.computeIfAbsent(key, k -> new Bucket(ratePerSecond, now));
    synchronized (b) {
      double refill = (now - b.last) / 1e9 * ratePerSecond;
      b.tokens = Math.min(ratePerSecond, b.tokens + refill);
      b.last = now;
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return true;
      }
      return false;
    }
  }
}
