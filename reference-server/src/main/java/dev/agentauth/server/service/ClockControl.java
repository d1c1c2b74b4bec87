package dev.agentauth.server.service;

import java.time.Duration;
import java.time.Instant;

/**
 * A clock the operator may move forward through {@code /admin/v1/clock} ({@code --test-clock}).
 * Both methods return the new time and throw {@link IllegalArgumentException} for a move backward.
 */
public interface ClockControl {
  Instant advance(Duration amount);

  Instant set(Instant instant);
}
