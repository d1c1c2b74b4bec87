package dev.agentauth.server;

import dev.agentauth.server.service.ClockControl;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock that stands still until moved, and only ever moves forward. Pass one to {@link
 * AgentAuthServer.Builder#clock} (or start the server with {@code --test-clock}) to test expiry,
 * five-minute nonces, 24-hour escalations and UTC days without sleeping. Thread-safe.
 */
public final class TestClock extends Clock implements ClockControl {
  /**
   * The latest time the clock may show: the last second of year 9999. Timestamps on the wire are
   * RFC 3339, whose years have four digits, so a clock beyond it could make no valid receipt.
   */
  public static final Instant LATEST = Instant.parse("9999-12-31T23:59:59Z");

  private final AtomicReference<Instant> now;

  /** A clock standing at {@code start}. */
  public TestClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  /** A clock standing at the current system time, truncated to milliseconds. */
  public static TestClock startingNow() {
    return new TestClock(Instant.ofEpochMilli(System.currentTimeMillis()));
  }

  /**
   * Moves the clock forward by {@code amount}.
   *
   * @throws IllegalArgumentException if {@code amount} is negative, or would move the clock past
   *     {@link #LATEST}
   */
  @Override
  public Instant advance(Duration amount) {
    if (amount.isNegative()) {
      throw new IllegalArgumentException("the test clock only moves forward, got " + amount);
    }
    return now.updateAndGet(
        t -> {
          if (Duration.between(t, LATEST).compareTo(amount) < 0) {
            throw new IllegalArgumentException(
                "would move the test clock past " + LATEST + " (it shows " + t + ")");
          }
          return t.plus(amount);
        });
  }

  /**
   * Sets the clock to {@code instant}.
   *
   * @throws IllegalArgumentException if {@code instant} is before the current time or after {@link
   *     #LATEST}
   */
  @Override
  public Instant set(Instant instant) {
    if (instant.isAfter(LATEST)) {
      throw new IllegalArgumentException("must not be after " + LATEST);
    }
    return now.updateAndGet(
        t -> {
          if (instant.isBefore(t)) {
            throw new IllegalArgumentException(
                "the test clock only moves forward: " + instant + " is before " + t);
          }
          return instant;
        });
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    if (ZoneOffset.UTC.equals(zone)) {
      return this;
    }
    throw new UnsupportedOperationException("the test clock is UTC only");
  }
}
