package dev.agentauth.client.internal;

import dev.agentauth.client.AgentAuthException;
import dev.agentauth.client.internal.CheckFallback.Cause;
import dev.agentauth.model.CheckResponse;
import dev.agentauth.model.CheckResult;
import dev.agentauth.model.Decision;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The application log's record of check fallbacks: a WARN line on logger {@value #LOGGER_NAME} each
 * time a check was answered by the fallback policy instead of the service, at most one line every
 * {@link #INTERVAL} for each kind of fallback.
 *
 * <p>A kind is the cause (timeout, unreachable, server error) and whether a {@code fail_open} scope
 * was allowed, so a run of denials never hides an allow. A line names the scopes, their mode and
 * reason, and the failure (its message, which the client has already stripped of the API key). A
 * fallback within the interval of the last line of its kind is counted, not logged; the next line
 * of that kind says how many were not logged, and so does a summary line once the service answers a
 * check again after the interval, so an outage that ends leaves its count in the log.
 *
 * <p>Lines go through the JDK's {@link System.Logger} ({@code java.util.logging} unless the
 * application installs another backend; Spring Boot routes it into its own log): the client needs
 * no logging library, and a missing SLF4J binding cannot silence the line. Time comes from the
 * client's monotonic clock, so tests move it instead of sleeping. Thread-safe: one instance is
 * shared by a client and its async view. Not part of the public API.
 */
public final class FallbackLog {

  /** The logger fallbacks are logged on: {@value}. */
  public static final String LOGGER_NAME = "dev.agentauth.client.fallback";

  /** At most one line per kind of fallback in this interval: 10 seconds. */
  public static final Duration INTERVAL = Duration.ofSeconds(10);

  private static final int KINDS = Cause.values().length * 2;

  private final Logger logger;
  private final LongSupplier nanoTime;
  private final long intervalNanos;

  private final Object lock = new Object();
  // Guarded by lock: per kind, when its last line was logged and what was not logged since.
  private final boolean[] logged = new boolean[KINDS];
  private final long[] lastNanos = new long[KINDS];
  private final long[] suppressed = new long[KINDS];
  private final long[] suppressedAllows = new long[KINDS];
  // Whether any kind has suppressed fallbacks: read without the lock on every answered check.
  private volatile boolean pending;

  /** Creates the log of one client, on {@value #LOGGER_NAME}, timed by {@code nanoTime}. */
  public FallbackLog(LongSupplier nanoTime) {
    this(System.getLogger(LOGGER_NAME), nanoTime, INTERVAL);
  }

  FallbackLog(Logger logger, LongSupplier nanoTime, Duration interval) {
    this.logger = Objects.requireNonNull(logger, "logger");
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    this.intervalNanos = interval.toNanos();
  }

  /**
   * Records that {@code response} was made by the fallback policy after {@code failure}: logs a
   * line, or counts it when a line of its kind was logged less than {@link #INTERVAL} ago.
   */
  public void fellBack(CheckResponse response, AgentAuthException failure) {
    List<String> allowed = new ArrayList<>();
    List<String> denied = new ArrayList<>();
    String openReason = null;
    String closedReason = null;
    for (Map.Entry<String, CheckResult> e : response.results().entrySet()) {
      CheckResult r = e.getValue();
      if (Decision.ALLOW.equals(r.decision())) {
        allowed.add(e.getKey());
        openReason = r.reason().value();
      } else {
        denied.add(e.getKey());
        closedReason = r.reason().value();
      }
    }
    Cause cause = Cause.of(failure);
    int kind = cause.ordinal() * 2 + (allowed.isEmpty() ? 0 : 1);
    long now = nanoTime.getAsLong();
    long notLogged;
    long notLoggedAllows;
    long sinceNanos;
    synchronized (lock) {
      if (logged[kind] && now - lastNanos[kind] < intervalNanos) {
        suppressed[kind]++;
        suppressedAllows[kind] += allowed.size();
        pending = true;
        return;
      }
      notLogged = suppressed[kind];
      notLoggedAllows = suppressedAllows[kind];
      sinceNanos = now - lastNanos[kind];
      markLogged(kind, now);
    }
    if (!isLoggable()) {
      return;
    }
    StringBuilder line = new StringBuilder("agentauth check fallback (").append(cause.label);
    line.append("), no decision from the service: ");
    if (!allowed.isEmpty()) {
      line.append("ALLOWED WITHOUT A DECISION by fail_open: ")
          .append(allowed)
          .append(" (")
          .append(openReason)
          .append(')');
      if (!denied.isEmpty()) {
        line.append("; ");
      }
    }
    if (!denied.isEmpty()) {
      line.append("denied by fail_closed: ")
          .append(denied)
          .append(" (")
          .append(closedReason)
          .append(')');
    }
    line.append(". Failure: ").append(failure.getMessage()).append('.');
    if (notLogged > 0) {
      line.append(' ');
      notLoggedSince(line, notLogged, notLoggedAllows, sinceNanos);
    }
    if (!allowed.isEmpty()) {
      line.append(" Whoever can slow or block the service decides every fail_open scope.");
    }
    warn(line.toString());
  }

  /**
   * Records that the service answered a check: logs, for each kind whose last line is at least
   * {@link #INTERVAL} old, how many fallbacks were not logged since. Costs one volatile read when
   * nothing is pending.
   */
  public void answered() {
    if (!pending) {
      return;
    }
    long now = nanoTime.getAsLong();
    List<String> lines = new ArrayList<>();
    synchronized (lock) {
      boolean still = false;
      for (int kind = 0; kind < KINDS; kind++) {
        if (suppressed[kind] == 0) {
          continue;
        }
        if (now - lastNanos[kind] < intervalNanos) {
          still = true;
          continue;
        }
        StringBuilder line =
            new StringBuilder("agentauth check fallbacks (")
                .append(Cause.values()[kind / 2].label)
                .append(kind % 2 == 1 ? ", fail_open allowed" : ", fail_closed denied")
                .append("): the service answers checks again. ");
        notLoggedSince(line, suppressed[kind], suppressedAllows[kind], now - lastNanos[kind]);
        lines.add(line.toString());
        markLogged(kind, now);
      }
      pending = still;
    }
    for (String line : lines) {
      warn(line);
    }
  }

  /** Logs at WARN; a failing logging backend never changes, or holds up, the check's answer. */
  private void warn(String line) {
    try {
      logger.log(Level.WARNING, line);
    } catch (RuntimeException e) {
      // Nothing to do: the decision stands whether or not it could be logged.
    }
  }

  private boolean isLoggable() {
    try {
      return logger.isLoggable(Level.WARNING);
    } catch (RuntimeException e) {
      return false;
    }
  }

  private void markLogged(int kind, long now) {
    logged[kind] = true;
    lastNanos[kind] = now;
    suppressed[kind] = 0;
    suppressedAllows[kind] = 0;
  }

  private static void notLoggedSince(StringBuilder line, long count, long allows, long nanos) {
    line.append("Not logged in the ")
        .append(Math.max(1, Duration.ofNanos(nanos).toSeconds()))
        .append(" s since the last line of this kind: ")
        .append(count)
        .append(count == 1 ? " fallback" : " fallbacks");
    if (allows > 0) {
      line.append(", ")
          .append(allows)
          .append(allows == 1 ? " scope" : " scopes")
          .append(" ALLOWED WITHOUT A DECISION by fail_open");
    }
    line.append('.');
  }

  @Override
  public String toString() {
    return "FallbackLog{" + LOGGER_NAME + ", one line per kind per " + INTERVAL + "}";
  }
}
