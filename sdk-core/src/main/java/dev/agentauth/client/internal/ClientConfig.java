package dev.agentauth.client.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.Objects;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;

/**
 * Everything a client instance was built with, resolved and immutable. Shared by the sync and async
 * views and by every service object. Not part of the public API.
 *
 * @param baseUrl the service's base URL (may carry a path prefix)
 * @param apiKey the API key, or {@code null} when only public endpoints are used
 * @param okHttp the HTTP client (connect timeout applied)
 * @param requestTimeout default timeout of a whole call, retries included
 * @param checkTimeout default timeout of a whole {@code /v1/check} call
 * @param maxRetries default retry limit
 * @param mapper the wire model's JSON mapper
 * @param timing clocks and waiting
 * @param backoff wait between retries
 * @param userAgent the {@code User-Agent} header value
 */
public record ClientConfig(
    HttpUrl baseUrl,
    String apiKey,
    OkHttpClient okHttp,
    Duration requestTimeout,
    Duration checkTimeout,
    int maxRetries,
    ObjectMapper mapper,
    Timing timing,
    Backoff backoff,
    String userAgent) {

  /** How much longer a check may take with {@code wait=true}: the service's inline signing wait. */
  public static final Duration CHECK_WAIT_EXTRA = Duration.ofSeconds(5);

  /** Checks that every member is present (the API key may be absent). */
  public ClientConfig {
    Objects.requireNonNull(baseUrl, "baseUrl");
    Objects.requireNonNull(okHttp, "okHttp");
    Objects.requireNonNull(requestTimeout, "requestTimeout");
    Objects.requireNonNull(checkTimeout, "checkTimeout");
    Objects.requireNonNull(mapper, "mapper");
    Objects.requireNonNull(timing, "timing");
    Objects.requireNonNull(backoff, "backoff");
    Objects.requireNonNull(userAgent, "userAgent");
  }

  /** Never reveals the API key. */
  @Override
  public String toString() {
    return "ClientConfig{baseUrl="
        + baseUrl
        + ", apiKey="
        + (apiKey == null ? "none" : "[redacted]")
        + ", requestTimeout="
        + requestTimeout
        + ", checkTimeout="
        + checkTimeout
        + ", maxRetries="
        + maxRetries
        + "}";
  }
}
