package dev.agentauth.client.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Time as the client sees it: wall clock (for {@code Retry-After} dates and {@code
 * ready_at_estimate}), a monotonic clock (for deadlines), and waiting, blocking or not. Injected so
 * that tests move time instead of sleeping. Not part of the public API.
 */
public interface Timing {

  /** Returns the current wall-clock instant. */
  Instant now();

  /** Returns a monotonic reading in nanoseconds, for measuring elapsed time. */
  long nanoTime();

  /** Blocks the calling thread for {@code duration}. */
  void sleep(Duration duration) throws InterruptedException;

  /**
   * Returns a future completed after {@code duration} by a timer, without occupying a pool thread
   * while waiting. Continuations must be cheap (they run on the timer thread).
   */
  CompletableFuture<Void> delay(Duration duration);

  /** Returns the real clock. */
  static Timing system() {
    return SystemTiming.INSTANCE;
  }

  /** The real clock: {@link Clock#systemUTC()}, {@link System#nanoTime()}, a JDK timer. */
  final class SystemTiming implements Timing {
    static final SystemTiming INSTANCE = new SystemTiming();

    private SystemTiming() {}

    @Override
    public Instant now() {
      return Clock.systemUTC().instant();
    }

    @Override
    public long nanoTime() {
      return System.nanoTime();
    }

    @Override
    public void sleep(Duration duration) throws InterruptedException {
      if (!duration.isNegative() && !duration.isZero()) {
        TimeUnit.NANOSECONDS.sleep(duration.toNanos());
      }
    }

    @Override
    public CompletableFuture<Void> delay(Duration duration) {
      long nanos = Math.max(0, duration.toNanos());
      return CompletableFuture.runAsync(
          () -> {}, CompletableFuture.delayedExecutor(nanos, TimeUnit.NANOSECONDS, Runnable::run));
    }
  }
}
