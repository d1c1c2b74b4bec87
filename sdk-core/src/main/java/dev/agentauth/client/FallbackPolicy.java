package dev.agentauth.client;

import dev.agentauth.model.FallbackMode;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What {@code /v1/check} answers when the service cannot: after a timeout, a connection failure, or
 * a 5xx answer that survived the retries. Instead of throwing, the client decides every requested
 * scope locally: {@code fail_closed} denies (the default), {@code fail_open} allows. Allow only
 * scopes whose action is harmless without an authorization decision.
 *
 * <pre>{@code
 * FallbackPolicy policy = FallbackPolicy.failClosed()   // deny everything by default
 *     .withFailOpen("docs.search", "weather.read");     // except these read-only scopes
 * AgentAuthClient client = AgentAuthClient.builder()...fallback(policy).build();
 * }</pre>
 *
 * <p>Fallback results carry {@code fallback: true}, the {@code fallback_mode}, a reason naming the
 * last attempt's failure ({@code fallback_closed_timeout} / {@code fallback_open_timeout}: the
 * check's timeout ran out; {@code fallback_closed_unreachable} / {@code fallback_open_unreachable}:
 * no connection, or it broke before an answer; {@code fallback_closed_server_error} / {@code
 * fallback_open_server_error}: the service was reached but answered 5xx) and no receipt; the
 * response's {@code policy_version} is {@value #POLICY_VERSION}. 4xx answers never fall back: they
 * are thrown. With {@link #disabled()} the client throws the failure instead.
 *
 * <p><b>Whoever can slow or block the service decides every {@code fail_open} scope.</b> A network
 * attacker, or enough load on the service, makes its checks time out, and every {@code fail_open}
 * scope is then allowed without a decision. Choose {@code fail_open} only for scopes whose action
 * is harmless to allow unchecked.
 *
 * <p><b>Every fallback is logged.</b> The client writes a WARN line on the {@link System.Logger}
 * {@code dev.agentauth.client.fallback} (java.util.logging unless the application routes it
 * elsewhere; Spring Boot does), naming the cause, the scopes, their mode and reason, and the
 * failure; an allow by {@code fail_open} reads {@code ALLOWED WITHOUT A DECISION}. At most one line
 * every 10 s for each cause (timeout, unreachable, server error) and outcome (some scope allowed,
 * or all denied); the next line of the kind, or a line once the service answers again, counts the
 * fallbacks that were not logged. The API key is never in it.
 *
 * <p><b>{@code fail_open} and model-written input.</b> A {@code fail_open} scope must not take
 * values the model controls into its check ({@code resource}, {@code context}, {@code session_id}
 * from tool arguments, say): whoever can make the service fail on such a value would turn a denial
 * into an allow. Use {@code fail_closed} for every scope whose check carries model-written input.
 * The service rejects malformed input (unpaired surrogates, oversized values) with a 4xx, which
 * never falls back.
 *
 * <p>Immutable and thread-safe.
 */
public final class FallbackPolicy {

  /** The {@code policy_version} of fallback check responses. */
  public static final String POLICY_VERSION = "sdk_fallback";

  private static final FallbackPolicy FAIL_CLOSED =
      new FallbackPolicy(FallbackMode.FAIL_CLOSED, Map.of());
  private static final FallbackPolicy FAIL_OPEN =
      new FallbackPolicy(FallbackMode.FAIL_OPEN, Map.of());
  private static final FallbackPolicy DISABLED = new FallbackPolicy(null, Map.of());

  private final FallbackMode defaultMode;
  private final Map<String, FallbackMode> scopeModes;

  private FallbackPolicy(FallbackMode defaultMode, Map<String, FallbackMode> scopeModes) {
    this.defaultMode = defaultMode;
    this.scopeModes = scopeModes;
  }

  /** Returns the default policy: every scope is denied when the service cannot answer. */
  public static FallbackPolicy failClosed() {
    return FAIL_CLOSED;
  }

  /**
   * Returns a policy allowing every scope when the service cannot answer. Prefer {@link
   * #failClosed()} with {@link #withFailOpen(String...)} for the few scopes that may run unchecked.
   */
  public static FallbackPolicy failOpen() {
    return FAIL_OPEN;
  }

  /** Returns a policy without fallback: a check that gets no answer throws. */
  public static FallbackPolicy disabled() {
    return DISABLED;
  }

  /**
   * Returns a copy in which the given scopes fall back to {@code fail_open}.
   *
   * @throws IllegalStateException if this policy is {@link #disabled()}
   * @throws IllegalArgumentException if a scope name is blank
   */
  public FallbackPolicy withFailOpen(String... scopes) {
    return with(FallbackMode.FAIL_OPEN, scopes);
  }

  /**
   * Returns a copy in which the given scopes fall back to {@code fail_closed}.
   *
   * @throws IllegalStateException if this policy is {@link #disabled()}
   * @throws IllegalArgumentException if a scope name is blank
   */
  public FallbackPolicy withFailClosed(String... scopes) {
    return with(FallbackMode.FAIL_CLOSED, scopes);
  }

  private FallbackPolicy with(FallbackMode mode, String... scopes) {
    Objects.requireNonNull(scopes, "scopes");
    if (defaultMode == null) {
      throw new IllegalStateException(
          "fallback is disabled: start from FallbackPolicy.failClosed() or failOpen() to set"
              + " per-scope modes");
    }
    Map<String, FallbackMode> copy = new LinkedHashMap<>(scopeModes);
    for (String scope : scopes) {
      Objects.requireNonNull(scope, "scope");
      if (scope.isBlank()) {
        throw new IllegalArgumentException("expected a scope name, found a blank string");
      }
      copy.put(scope, mode);
    }
    return new FallbackPolicy(defaultMode, Collections.unmodifiableMap(copy));
  }

  /** Returns whether checks fall back at all (false for {@link #disabled()}). */
  public boolean isEnabled() {
    return defaultMode != null;
  }

  /** Returns the mode of scopes without an override, or {@code null} when disabled. */
  public FallbackMode defaultMode() {
    return defaultMode;
  }

  /** Returns the per-scope overrides, in the order they were added. */
  public Map<String, FallbackMode> scopeModes() {
    return scopeModes;
  }

  /**
   * Returns the mode that decides {@code scope} on fallback, or {@code null} when disabled.
   *
   * @throws NullPointerException if {@code scope} is null
   */
  public FallbackMode modeFor(String scope) {
    Objects.requireNonNull(scope, "scope");
    if (defaultMode == null) {
      return null;
    }
    return scopeModes.getOrDefault(scope, defaultMode);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FallbackPolicy p
        && Objects.equals(defaultMode, p.defaultMode)
        && scopeModes.equals(p.scopeModes);
  }

  @Override
  public int hashCode() {
    return Objects.hash(defaultMode, scopeModes);
  }

  @Override
  public String toString() {
    if (defaultMode == null) {
      return "FallbackPolicy{disabled}";
    }
    return "FallbackPolicy{default=" + defaultMode + ", scopes=" + scopeModes + "}";
  }
}
