package dev.agentauth.client.internal;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * Capped exponential backoff with jitter: retry {@code n} (1-based) waits a random time in {@code
 * [d/2, d]} where {@code d = min(max, initial * 2^(n-1))}. The jitter spreads clients that failed
 * together; the lower bound keeps them from hammering a struggling service. Not part of the public
 * API.
 */
public final class Backoff {

  /** Default first wait bound: retry 1 waits 100–200 ms. */
  public static final Duration DEFAULT_INITIAL = Duration.ofMillis(200);

  /** Default cap: no backoff wait exceeds 2 s. */
  public static final Duration DEFAULT_MAX = Duration.ofSeconds(2);

  private final Duration initial;
  private final Duration max;
  private final DoubleSupplier random;

  /**
   * Creates a backoff.
   *
   * @param random uniform values in {@code [0, 1)}
   */
  public Backoff(Duration initial, Duration max, DoubleSupplier random) {
    this.initial = Objects.requireNonNull(initial, "initial");
    this.max = Objects.requireNonNull(max, "max");
    this.random = Objects.requireNonNull(random, "random");
  }

  /** Returns the default backoff with a thread-local random source. */
  public static Backoff defaults() {
    return new Backoff(
        DEFAULT_INITIAL, DEFAULT_MAX, () -> ThreadLocalRandom.current().nextDouble());
  }

  /** Returns the wait before retry {@code retry} (1 for the first retry). */
  public Duration delay(int retry) {
    if (retry < 1) {
      throw new IllegalArgumentException("expected retry >= 1, found: " + retry);
    }
    long capNanos = max.toNanos();
    long bound = initial.toNanos();
    for (int i = 1; i < retry && bound < capNanos; i++) {
      bound *= 2;
    }
    bound = Math.min(bound, capNanos);
    double r = Math.min(Math.max(random.getAsDouble(), 0.0), 1.0);
    return Duration.ofNanos((long) (bound / 2.0 + r * (bound / 2.0)));
  }
}
