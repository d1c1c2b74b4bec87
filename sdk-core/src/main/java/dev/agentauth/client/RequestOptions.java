package dev.agentauth.client;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Per-call settings that override the client's defaults for one logical call (all of its retries
 * included). Immutable and thread-safe; build once and reuse.
 *
 * <pre>{@code
 * RequestOptions opts = RequestOptions.builder()
 *     .timeout(Duration.ofSeconds(2))
 *     .maxRetries(0)
 *     .idempotencyKey("order-4711-grant")
 *     .header("X-Trace", traceId)
 *     .build();
 * client.authorizations().create(params, opts);
 * }</pre>
 */
public final class RequestOptions {
  private static final RequestOptions NONE = new Builder().build();

  /** Longest idempotency key the service accepts. */
  static final int MAX_IDEMPOTENCY_KEY_LENGTH = 255;

  /** Most retries a caller may ask for. */
  static final int MAX_RETRIES_LIMIT = 10;

  private final Duration timeout;
  private final Integer maxRetries;
  private final String idempotencyKey;
  private final Map<String, String> headers;

  private RequestOptions(Builder b) {
    this.timeout = b.timeout;
    this.maxRetries = b.maxRetries;
    this.idempotencyKey = b.idempotencyKey;
    this.headers = Collections.unmodifiableMap(new LinkedHashMap<>(b.headers));
  }

  /** Returns options that change nothing: every value comes from the client. */
  public static RequestOptions none() {
    return NONE;
  }

  /** Returns an empty builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns a builder holding these options. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.timeout = timeout;
    b.maxRetries = maxRetries;
    b.idempotencyKey = idempotencyKey;
    b.headers.putAll(headers);
    return b;
  }

  /**
   * Returns the timeout of the whole logical call (every attempt and backoff wait), or {@code null}
   * to use the client's (request timeout, or check timeout for {@code /v1/check}).
   */
  public Duration timeout() {
    return timeout;
  }

  /** Returns the retry limit for this call, or {@code null} to use the client's. */
  public Integer maxRetries() {
    return maxRetries;
  }

  /**
   * Returns the {@code Idempotency-Key} for a POST or DELETE, or {@code null} to let the client
   * generate one (once per call, reused on every retry). Ignored for GET and PUT.
   */
  public String idempotencyKey() {
    return idempotencyKey;
  }

  /** Returns the extra headers sent with every attempt of this call, in insertion order. */
  public Map<String, String> headers() {
    return headers;
  }

  @Override
  public String toString() {
    return "RequestOptions{timeout="
        + timeout
        + ", maxRetries="
        + maxRetries
        + ", idempotencyKey="
        + idempotencyKey
        + ", headers="
        + headers.keySet()
        + "}";
  }

  /** Builder of {@link RequestOptions}; every value starts unset (client default). */
  public static final class Builder {
    private Duration timeout;
    private Integer maxRetries;
    private String idempotencyKey;
    private final Map<String, String> headers = new LinkedHashMap<>();

    private Builder() {}

    /**
     * Sets the timeout of the whole call, retries included.
     *
     * @throws IllegalArgumentException if {@code timeout} is zero or negative
     */
    public Builder timeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isZero() || timeout.isNegative()) {
        throw new IllegalArgumentException("expected a positive timeout, found: " + timeout);
      }
      this.timeout = timeout;
      return this;
    }

    /**
     * Sets how many times a failed attempt may be retried (0 disables retries).
     *
     * @throws IllegalArgumentException if outside 0–10
     */
    public Builder maxRetries(int maxRetries) {
      if (maxRetries < 0 || maxRetries > MAX_RETRIES_LIMIT) {
        throw new IllegalArgumentException(
            "expected maxRetries in 0-" + MAX_RETRIES_LIMIT + ", found: " + maxRetries);
      }
      this.maxRetries = maxRetries;
      return this;
    }

    /**
     * Sets the {@code Idempotency-Key} of a POST or DELETE, e.g. derived from your own operation
     * id, so that retrying the call (even from another process) never acts twice.
     *
     * @throws IllegalArgumentException unless 1–255 printable ASCII characters
     */
    public Builder idempotencyKey(String idempotencyKey) {
      Objects.requireNonNull(idempotencyKey, "idempotencyKey");
      if (idempotencyKey.isEmpty() || idempotencyKey.length() > MAX_IDEMPOTENCY_KEY_LENGTH) {
        throw new IllegalArgumentException(
            "expected an idempotency key of 1-255 characters, found length "
                + idempotencyKey.length());
      }
      for (int i = 0; i < idempotencyKey.length(); i++) {
        char c = idempotencyKey.charAt(i);
        if (c < 0x21 || c > 0x7e) {
          throw new IllegalArgumentException(
              "expected an idempotency key of printable ASCII without spaces, found character"
                  + " U+"
                  + String.format(Locale.ROOT, "%04X", (int) c)
                  + " at index "
                  + i);
        }
      }
      this.idempotencyKey = idempotencyKey;
      return this;
    }

    /**
     * Adds (or replaces) an extra header sent with this call.
     *
     * @throws IllegalArgumentException if the name or value is not a valid header, or the name is
     *     {@code Authorization} (configure the API key on the client) or {@code Idempotency-Key}
     *     (use {@link #idempotencyKey(String)})
     */
    public Builder header(String name, String value) {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(value, "value");
      if (name.equalsIgnoreCase("Authorization")) {
        throw new IllegalArgumentException(
            "the Authorization header is managed by the client: set the API key with"
                + " AgentAuthClient.builder().apiKey(...) or client.newBuilder().apiKey(...)");
      }
      if (name.equalsIgnoreCase("Idempotency-Key")) {
        throw new IllegalArgumentException(
            "use RequestOptions.Builder.idempotencyKey(...) to set the Idempotency-Key header");
      }
      try {
        okhttp3.Headers.of(name, value);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("invalid header " + name + ": " + e.getMessage(), e);
      }
      headers.keySet().removeIf(existing -> existing.equalsIgnoreCase(name));
      headers.put(name, value);
      return this;
    }

    /** Returns the options; the builder can be reused. */
    public RequestOptions build() {
      return new RequestOptions(this);
    }
  }
}
