package dev.agentauth.server.webhook;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What the {@link DeliveryWorker} shows in {@code /metrics}: attempts by outcome, deliveries ended
 * by status, how long attempts take, how long after its event a delivery arrived, and the outbox
 * (pending deliveries and the age of the oldest) as of the worker's last poll. No label names a
 * workspace or a webhook: they are many. Thread-safe.
 */
public final class DeliveryMetrics {

  /** How one attempt ended. */
  public enum Outcome {
    /** A 2xx answered. */
    SUCCESS,
    /** Another status answered (a redirect too: none is followed). */
    HTTP_ERROR,
    /** No answer within the timeout. */
    TIMEOUT,
    /** The target broke a target rule when the attempt was made (no connection was opened). */
    REFUSED,
    /** The connection failed: refused, reset, TLS, a name that does not resolve. */
    NETWORK_ERROR;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** The statuses a delivery ends with. */
  private static final String[] FINISHED = {"delivered", "failed", "cancelled"};

  private final Map<Outcome, Counter> attempts = new EnumMap<>(Outcome.class);
  private final Map<String, Counter> finished = new HashMap<>();
  private final DistributionSummary attemptSeconds;
  private final DistributionSummary latencySeconds;
  private volatile long pending;
  private volatile double oldestPendingSeconds;

  /** Registers the webhook meters in {@code registry}. */
  public DeliveryMetrics(MeterRegistry registry) {
    for (Outcome o : Outcome.values()) {
      attempts.put(
          o,
          Counter.builder("agentauth_webhook_attempts")
              .tag("outcome", o.label())
              .description("Webhook delivery attempts made by this process, by how they ended")
              .register(registry));
    }
    for (String status : FINISHED) {
      finished.put(
          status,
          Counter.builder("agentauth_webhook_deliveries_finished")
              .tag("status", status)
              .description(
                  "Webhook deliveries this process ended: delivered (a 2xx), failed (no 2xx within"
                      + " the retry period), cancelled (an expiry whose escalation was resolved)")
              .register(registry));
    }
    attemptSeconds =
        DistributionSummary.builder("agentauth_webhook_attempt_seconds")
            .description(
                "Time from sending a webhook attempt to its answer (or failure), over the last 30"
                    + " to 40 seconds")
            .publishPercentiles(0.5, 0.99)
            .distributionStatisticExpiry(Duration.ofSeconds(40))
            .distributionStatisticBufferLength(4)
            .register(registry);
    latencySeconds =
        DistributionSummary.builder("agentauth_webhook_delivery_latency_seconds")
            .description(
                "Time from an event to the 2xx that delivered it, retries included, over the last"
                    + " 30 to 40 seconds")
            .publishPercentiles(0.5, 0.99)
            .distributionStatisticExpiry(Duration.ofSeconds(40))
            .distributionStatisticBufferLength(4)
            .register(registry);
    Gauge.builder("agentauth_webhook_pending", this, m -> m.pending)
        .description(
            "Webhook deliveries whose event happened and that are neither delivered nor given up"
                + " (counted up to 100,000), as of the delivery worker's last poll")
        .register(registry);
    Gauge.builder("agentauth_webhook_oldest_pending_seconds", this, m -> m.oldestPendingSeconds)
        .description(
            "Age of the event of the oldest pending webhook delivery, as of the delivery worker's"
                + " last poll; 0 when none is pending")
        .register(registry);
  }

  /** An attempt ended with {@code outcome} after {@code took} (null: no request was sent). */
  void attempted(Outcome outcome, Duration took) {
    attempts.get(outcome).increment();
    if (took != null) {
      attemptSeconds.record(took.toNanos() / 1e9);
    }
  }

  /**
   * A delivery ended with {@code status}; {@code sinceEvent} is how long after its event (for a
   * delivered one).
   */
  void finished(String status, Duration sinceEvent) {
    Counter c = finished.get(status);
    if (c != null) {
      c.increment();
    }
    if ("delivered".equals(status) && sinceEvent != null) {
      latencySeconds.record(Math.max(0, sinceEvent.toNanos()) / 1e9);
    }
  }

  /** The outbox as just measured. */
  void outbox(long pendingDeliveries, Duration oldest) {
    this.pending = pendingDeliveries;
    this.oldestPendingSeconds = oldest == null ? 0 : Math.max(0, oldest.toNanos()) / 1e9;
  }
}
