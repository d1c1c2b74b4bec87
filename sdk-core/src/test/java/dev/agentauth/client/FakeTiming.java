package dev.agentauth.client;

import dev.agentauth.client.internal.Timing;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Time that only moves when the client waits: {@code sleep} and {@code delay} record the wait and
 * advance both clocks at once, without any real sleeping.
 */
final class FakeTiming implements Timing {
  static final Instant START = Instant.parse("2026-11-22T10:00:00Z");

  private long elapsedNanos;
  private final List<Duration> sleeps = new ArrayList<>();
  private final List<Duration> delays = new ArrayList<>();

  @Override
  public synchronized Instant now() {
    return START.plusNanos(elapsedNanos);
  }

  @Override
  public synchronized long nanoTime() {
    return elapsedNanos;
  }

  @Override
  public synchronized void sleep(Duration duration) {
    sleeps.add(duration);
    elapsedNanos += Math.max(0, duration.toNanos());
  }

  @Override
  public CompletableFuture<Void> delay(Duration duration) {
    synchronized (this) {
      delays.add(duration);
      elapsedNanos += Math.max(0, duration.toNanos());
    }
    return CompletableFuture.completedFuture(null);
  }

  /** Moves both clocks forward without a wait being recorded. */
  synchronized void advance(Duration duration) {
    elapsedNanos += duration.toNanos();
  }

  synchronized List<Duration> sleeps() {
    return List.copyOf(sleeps);
  }

  synchronized List<Duration> delays() {
    return List.copyOf(delays);
  }

  synchronized Duration totalWaited() {
    Duration total = Duration.ZERO;
    for (Duration d : sleeps) {
      total = total.plus(d);
    }
    for (Duration d : delays) {
      total = total.plus(d);
    }
    return total;
  }
}
