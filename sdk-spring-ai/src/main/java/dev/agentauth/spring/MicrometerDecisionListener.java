package dev.agentauth.spring;

import dev.agentauth.mcp.DecisionListener;
import dev.agentauth.mcp.GuardDecision;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Records every guard decision in Micrometer (registered by the starter when Micrometer is on the
 * class path; it records into the application's {@link MeterRegistry}, when there is one):
 *
 * <ul>
 *   <li>{@value #DECISIONS}, a counter tagged {@code tool}, {@code decision}, {@code reason},
 *       {@code local} ({@code true} for decisions made without the service) and {@code fallback}
 *       ({@code none}, {@code fail_closed} or {@code fail_open});
 *   <li>{@value #LATENCY}, a timer of the guard's decision time tagged {@code tool} and {@code
 *       decision}.
 * </ul>
 *
 * <p>Tag values are bounded: tool names come from the server's registered tools, decisions and
 * reasons from the service's fixed vocabularies.
 */
public final class MicrometerDecisionListener implements DecisionListener {

  /** The decision counter's name: {@value}. */
  public static final String DECISIONS = "agentauth.guard.decisions";

  /** The decision timer's name: {@value}. */
  public static final String LATENCY = "agentauth.guard.latency";

  private final Supplier<MeterRegistry> registry;

  /** Records into {@code registry}. */
  public MicrometerDecisionListener(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    this.registry = () -> registry;
  }

  /**
   * Records into the registry {@code registry} supplies, asked at decisions until it supplies one
   * (the starter passes a lookup of the application's registry, which may be defined after it, and
   * is too slow to repeat on every call); nothing is recorded before.
   */
  public MicrometerDecisionListener(Supplier<MeterRegistry> registry) {
    Objects.requireNonNull(registry, "registry");
    this.registry =
        new Supplier<>() {
          private volatile MeterRegistry found;

          @Override
          public MeterRegistry get() {
            MeterRegistry r = found;
            if (r == null) {
              r = registry.get();
              found = r;
            }
            return r;
          }
        };
  }

  @Override
  public void onDecision(GuardDecision d) {
    MeterRegistry registry = this.registry.get();
    if (registry == null) {
      return;
    }
    Counter.builder(DECISIONS)
        .description("agentauth tool-call decisions")
        .tag("tool", d.toolName())
        .tag("decision", d.decision().value())
        .tag("reason", d.reason().value())
        .tag("local", Boolean.toString(d.local()))
        .tag("fallback", d.fallbackMode() == null ? "none" : d.fallbackMode().value())
        .register(registry)
        .increment();
    Timer.builder(LATENCY)
        .description("time the agentauth guard took to decide a tool call")
        .tag("tool", d.toolName())
        .tag("decision", d.decision().value())
        .register(registry)
        .record(d.latency());
  }
}
