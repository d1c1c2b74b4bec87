package dev.agentauth.client.internal;

import dev.agentauth.client.AgentAuthException;
import dev.agentauth.client.ApiResponse;
import dev.agentauth.client.CheckParams;
import dev.agentauth.client.ConnectionException;
import dev.agentauth.client.FallbackPolicy;
import dev.agentauth.client.RequestTimeoutException;
import dev.agentauth.client.ServerException;
import dev.agentauth.model.CheckResponse;
import dev.agentauth.model.CheckResult;
import dev.agentauth.model.Decision;
import dev.agentauth.model.FallbackMode;
import dev.agentauth.model.Reason;
import java.util.LinkedHashMap;
import java.util.Map;
import okhttp3.Headers;

/**
 * The SDK-local answer of a check that got none from the service (decisions §13): per scope, {@code
 * fail_closed} denies and {@code fail_open} allows; results are marked, tell a timeout, an
 * unreachable service and a service that answered 5xx apart, and carry no receipt. Not part of the
 * public API.
 */
public final class CheckFallback {
  private CheckFallback() {}

  /**
   * Returns whether {@code failure} may be answered by a fallback: the policy is enabled and the
   * failure is a timeout, a connection failure or a 5xx (never a 4xx, never an interruption).
   */
  public static boolean applies(FallbackPolicy policy, Throwable failure) {
    if (!policy.isEnabled() || Errors.isInterruption(failure)) {
      return false;
    }
    return failure instanceof ConnectionException || failure instanceof ServerException;
  }

  /**
   * Returns the fallback response for {@code params} after {@code failure}. The reason names the
   * last attempt's failure: {@code *_timeout} for the call's timeout, {@code *_server_error} for a
   * 5xx answer (the service was reached but failed), {@code *_unreachable} for any other transport
   * failure (refused, reset, DNS, TLS). The fallback is recorded in {@code log} (a WARN line,
   * rate-limited).
   */
  public static ApiResponse<CheckResponse> respond(
      FallbackPolicy policy, CheckParams params, AgentAuthException failure, FallbackLog log) {
    Map<String, CheckResult> results = new LinkedHashMap<>();
    for (String scope : params.scopes()) {
      FallbackMode mode = policy.modeFor(scope);
      boolean open = FallbackMode.FAIL_OPEN.equals(mode);
      Reason reason = reason(open, failure);
      results.put(
          scope,
          new CheckResult(
              open ? Decision.ALLOW : Decision.DENY,
              reason,
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              Boolean.TRUE,
              mode));
    }
    CheckResponse response =
        new CheckResponse(
            params.authorizationId(), null, null, null, FallbackPolicy.POLICY_VERSION, results);
    log.fellBack(response, failure);
    return new ApiResponse<>(response, 0, Headers.of(), failure);
  }

  private static Reason reason(boolean open, AgentAuthException failure) {
    return switch (Cause.of(failure)) {
      case TIMEOUT -> open ? Reason.FALLBACK_OPEN_TIMEOUT : Reason.FALLBACK_CLOSED_TIMEOUT;
      case SERVER_ERROR ->
          open ? Reason.FALLBACK_OPEN_SERVER_ERROR : Reason.FALLBACK_CLOSED_SERVER_ERROR;
      case UNREACHABLE ->
          open ? Reason.FALLBACK_OPEN_UNREACHABLE : Reason.FALLBACK_CLOSED_UNREACHABLE;
    };
  }

  /** What kept the service from answering, as the fallback reasons tell it apart. */
  enum Cause {
    /** The check's timeout ran out. */
    TIMEOUT("timeout"),
    /** No connection, or it broke before an answer. */
    UNREACHABLE("unreachable"),
    /** The service (or a gateway) answered 5xx. */
    SERVER_ERROR("server error");

    final String label;

    Cause(String label) {
      this.label = label;
    }

    static Cause of(AgentAuthException failure) {
      if (failure instanceof RequestTimeoutException) {
        return TIMEOUT;
      }
      if (failure instanceof ServerException) {
        return SERVER_ERROR;
      }
      return UNREACHABLE;
    }
  }
}
