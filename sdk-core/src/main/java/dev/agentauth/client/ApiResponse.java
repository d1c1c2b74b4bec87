package dev.agentauth.client;

import java.util.Objects;
import okhttp3.Headers;

/**
 * A response value together with what the HTTP response said about it: status, headers and the
 * {@code X-Request-Id} to quote to the service operator. Returned by the {@code ...WithResponse}
 * methods; the plain methods return {@link #value()} alone.
 *
 * <pre>{@code
 * ApiResponse<CheckResponse> r = client.checkWithResponse(params, RequestOptions.none());
 * log.info("check {} answered by request {}", r.value().policyVersion(), r.requestId());
 * }</pre>
 *
 * <p>For an SDK-local fallback check response no HTTP response was used: {@link #statusCode()} is
 * {@code 0}, the headers are empty, and {@link #fallbackCause()} holds the failure that triggered
 * the fallback.
 *
 * @param <T> the type of the response body
 */
public final class ApiResponse<T> {
  private final T value;
  private final int statusCode;
  private final Headers headers;
  private final AgentAuthException fallbackCause;

  /**
   * Creates a response.
   *
   * @param value the parsed body
   * @param statusCode the HTTP status, or {@code 0} for an SDK-local fallback
   * @param headers the response headers
   * @param fallbackCause the failure that triggered an SDK-local fallback, or {@code null}
   */
  public ApiResponse(T value, int statusCode, Headers headers, AgentAuthException fallbackCause) {
    this.value = Objects.requireNonNull(value, "value");
    this.statusCode = statusCode;
    this.headers = Objects.requireNonNull(headers, "headers");
    this.fallbackCause = fallbackCause;
  }

  /** Returns the parsed response body. */
  public T value() {
    return value;
  }

  /** Returns the HTTP status code, or {@code 0} for an SDK-local fallback response. */
  public int statusCode() {
    return statusCode;
  }

  /** Returns the response headers (empty for an SDK-local fallback response). */
  public Headers headers() {
    return headers;
  }

  /** Returns the response's {@code X-Request-Id}, or {@code null} when it had none. */
  public String requestId() {
    return headers.get("X-Request-Id");
  }

  /**
   * Returns whether the service replayed a stored answer for this call's idempotency key ({@code
   * Idempotent-Replayed: true}), e.g. because an earlier attempt had already succeeded.
   */
  public boolean idempotentReplayed() {
    return "true".equalsIgnoreCase(headers.get("Idempotent-Replayed"));
  }

  /**
   * Returns the failure that made the client answer a check locally with fallback results (a {@link
   * ConnectionException}, {@link RequestTimeoutException} or {@link ServerException}), or {@code
   * null} when the value came from the service.
   */
  public AgentAuthException fallbackCause() {
    return fallbackCause;
  }

  @Override
  public String toString() {
    return "ApiResponse{status="
        + statusCode
        + ", requestId="
        + requestId()
        + (fallbackCause == null ? "" : ", fallback=true")
        + ", value="
        + value
        + "}";
  }
}
