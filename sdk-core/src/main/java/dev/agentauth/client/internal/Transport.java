package dev.agentauth.client.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.agentauth.client.AgentAuthException;
import dev.agentauth.client.ApiResponse;
import dev.agentauth.client.RateLimitException;
import dev.agentauth.client.RequestOptions;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * Executes {@link ApiRequest}s: builds the HTTP request (auth, {@code User-Agent}, {@code
 * Idempotency-Key}, extra headers), enforces the call's deadline, retries what is worth retrying
 * with backoff, and reads the answer into a value or one of the client's exceptions. The async path
 * runs on OkHttp's dispatcher and a timer; it never blocks a pool thread waiting. Not part of the
 * public API.
 *
 * <p>Rules, in one place:
 *
 * <ul>
 *   <li>The timeout covers the whole logical call: every attempt, and every wait between attempts.
 *       Each attempt gets what is left as its OkHttp call timeout.
 *   <li>Retried: transport failures (refused, reset, dropped mid-body, timeouts while time is left)
 *       and statuses 408, 429, 500, 502, 503, 504. Never retried: other statuses, unreadable
 *       success bodies, interruption.
 *   <li>The wait before retry {@code n} is {@code Retry-After} when the answer has one, else the
 *       jittered exponential {@link Backoff}. A wait that would outlast the deadline ends the call
 *       with the last failure.
 *   <li>POST and DELETE carry one {@code Idempotency-Key} per logical call, the caller's or a
 *       random UUID, identical on every attempt. The one exception, creating an API key, has no key
 *       (its answer holds a secret the service never stores, so it cannot be replayed) and is sent
 *       once, never retried.
 * </ul>
 */
public final class Transport {
  private static final MediaType JSON = MediaType.get("application/json");
  private static final String ACCEPT = "application/json, application/problem+json";

  private final ClientConfig config;
  private final Errors errors;

  /** Creates the transport of one client. */
  public Transport(ClientConfig config) {
    this.config = config;
    this.errors = new Errors(config.mapper(), config.apiKey());
  }

  /** Returns the client's configuration. */
  public ClientConfig config() {
    return config;
  }

  /** Returns the default timeout of a whole call to {@code request}. */
  public Duration defaultTimeout(ApiRequest<?> request) {
    if (request.kind() == ApiRequest.Kind.CHECK) {
      Duration t = config.checkTimeout();
      return request.waitForReceipt() ? t.plus(ClientConfig.CHECK_WAIT_EXTRA) : t;
    }
    return config.requestTimeout();
  }

  /**
   * Executes {@code request} on the calling thread.
   *
   * @throws AgentAuthException when the call fails after the retries it was allowed
   * @throws IllegalStateException if the endpoint needs an API key and none is configured
   */
  public <T> ApiResponse<T> execute(ApiRequest<T> request, RequestOptions options) {
    CallState<T> state = new CallState<>(request, options);
    while (true) {
      Attempt<T> attempt = attemptSync(state);
      if (attempt.response != null) {
        return attempt.response;
      }
      Duration wait = state.nextWait(attempt);
      if (wait == null) {
        throw attempt.failure;
      }
      try {
        config.timing().sleep(wait);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw errors.interrupted(request, e);
      }
      state.retries++;
    }
  }

  /**
   * Executes {@code request} asynchronously. The future fails with the client's exception (not
   * wrapped); cancelling it cancels the HTTP call in flight.
   *
   * @throws IllegalStateException if the endpoint needs an API key and none is configured (thrown
   *     immediately, not through the future)
   */
  public <T> CompletableFuture<ApiResponse<T>> executeAsync(
      ApiRequest<T> request, RequestOptions options) {
    CallState<T> state = new CallState<>(request, options);
    CompletableFuture<ApiResponse<T>> result = new CompletableFuture<>();
    result.whenComplete(
        (v, e) -> {
          if (result.isCancelled()) {
            Call call = state.current;
            if (call != null) {
              call.cancel();
            }
          }
        });
    attemptAsync(state, result);
    return result;
  }

  private <T> Attempt<T> attemptSync(CallState<T> state) {
    Call call = state.newCall();
    try (Response response = call.execute()) {
      return read(state, response);
    } catch (IOException e) {
      return Attempt.failed(
          errors.transport(state.request, e, null, state.timeout), !Errors.isInterruption(e));
    }
  }

  private <T> void attemptAsync(CallState<T> state, CompletableFuture<ApiResponse<T>> result) {
    if (result.isDone()) {
      return;
    }
    Call call = state.newCall();
    call.enqueue(
        new Callback() {
          @Override
          public void onFailure(Call c, IOException e) {
            handle(
                state,
                result,
                Attempt.failed(errors.transport(state.request, e, null, state.timeout), true));
          }

          @Override
          public void onResponse(Call c, Response response) {
            Attempt<T> attempt;
            try (response) {
              attempt = read(state, response);
            } catch (RuntimeException e) {
              result.completeExceptionally(e);
              return;
            }
            handle(state, result, attempt);
          }
        });
  }

  private <T> void handle(
      CallState<T> state, CompletableFuture<ApiResponse<T>> result, Attempt<T> attempt) {
    if (attempt.response != null) {
      result.complete(attempt.response);
      return;
    }
    Duration wait = state.nextWait(attempt);
    if (wait == null || result.isDone()) {
      result.completeExceptionally(attempt.failure);
      return;
    }
    state.retries++;
    config
        .timing()
        .delay(wait)
        .whenComplete(
            (v, e) -> {
              if (e != null) {
                result.completeExceptionally(attempt.failure);
              } else {
                attemptAsync(state, result);
              }
            });
  }

  private <T> Attempt<T> read(CallState<T> state, Response response) {
    ApiRequest<T> request = state.request;
    String requestId = response.header("X-Request-Id");
    ResponseBody body = response.body();
    MediaType mediaType = body.contentType();
    String contentType = mediaType == null ? response.header("Content-Type") : mediaType.toString();
    byte[] bytes;
    try {
      bytes = body.bytes();
    } catch (IOException e) {
      return Attempt.failed(
          errors.transport(request, e, requestId, state.timeout), !Errors.isInterruption(e));
    }
    int status = response.code();
    if (status >= 200 && status < 300) {
      try {
        T value = bytes.length == 0 ? null : request.reader.read(config.mapper(), bytes);
        if (value == null) {
          return Attempt.failed(
              errors.malformed(request, status, contentType, bytes, requestId, null), false);
        }
        return Attempt.ok(new ApiResponse<>(value, status, response.headers(), null));
      } catch (IOException | RuntimeException e) {
        return Attempt.failed(
            errors.malformed(request, status, contentType, bytes, requestId, e), false);
      }
    }
    AgentAuthException failure =
        errors.fromStatus(
            request, status, response.headers(), contentType, bytes, config.timing().now());
    Duration retryAfter =
        failure instanceof RateLimitException r
            ? r.retryAfter()
            : Errors.retryAfter(response.header("Retry-After"), config.timing().now());
    return new Attempt<>(null, failure, Errors.retryableStatus(status), retryAfter);
  }

  /** The outcome of one attempt. */
  private static final class Attempt<T> {
    final ApiResponse<T> response;
    final AgentAuthException failure;
    final boolean retryable;
    final Duration retryAfter;

    Attempt(
        ApiResponse<T> response,
        AgentAuthException failure,
        boolean retryable,
        Duration retryAfter) {
      this.response = response;
      this.failure = failure;
      this.retryable = retryable;
      this.retryAfter = retryAfter;
    }

    static <T> Attempt<T> ok(ApiResponse<T> response) {
      return new Attempt<>(response, null, false, null);
    }

    static <T> Attempt<T> failed(AgentAuthException failure, boolean retryable) {
      return new Attempt<>(null, failure, retryable, null);
    }
  }

  /** One logical call: its deadline, idempotency key, serialized body and retry count. */
  private final class CallState<T> {
    final ApiRequest<T> request;
    final RequestOptions options;
    final Duration timeout;
    final long deadlineNanos;
    final int maxRetries;
    final Request httpRequest;
    int retries;
    volatile Call current;

    CallState(ApiRequest<T> request, RequestOptions options) {
      this.request = request;
      this.options = options == null ? RequestOptions.none() : options;
      if (request.authenticated() && config.apiKey() == null) {
        throw new IllegalStateException(
            request.describe()
                + " needs an API key: configure one with AgentAuthClient.builder().apiKey(...)");
      }
      this.timeout =
          this.options.timeout() != null ? this.options.timeout() : defaultTimeout(request);
      this.deadlineNanos = config.timing().nanoTime() + timeout.toNanos();
      if (!request.repeatable()) {
        // Sent at most once: a retry could act twice, and nothing would tell.
        this.maxRetries = 0;
      } else {
        this.maxRetries =
            this.options.maxRetries() != null ? this.options.maxRetries() : config.maxRetries();
      }
      this.httpRequest = buildRequest();
    }

    private Request buildRequest() {
      HttpUrl.Builder url = config.baseUrl().newBuilder();
      for (String segment : request.segments()) {
        url.addPathSegment(segment);
      }
      for (Map.Entry<String, String> q : request.query().entrySet()) {
        url.addQueryParameter(q.getKey(), q.getValue());
      }
      Request.Builder b =
          new Request.Builder()
              .url(url.build())
              .header("User-Agent", config.userAgent())
              .header("Accept", ACCEPT);
      if (request.authenticated()) {
        b.header("Authorization", "Bearer " + config.apiKey());
      }
      if (request.idempotent()) {
        String key =
            options.idempotencyKey() != null
                ? options.idempotencyKey()
                : UUID.randomUUID().toString();
        b.header("Idempotency-Key", key);
      }
      for (Map.Entry<String, String> h : options.headers().entrySet()) {
        b.header(h.getKey(), h.getValue());
      }
      RequestBody body = null;
      if (request.body() != null) {
        try {
          body = RequestBody.create(config.mapper().writeValueAsBytes(request.body()), JSON);
        } catch (JsonProcessingException e) {
          throw new IllegalArgumentException(
              request.describe()
                  + ": the request body cannot be written as JSON: "
                  + e.getMessage(),
              e);
        }
      } else if (request.method().equals("POST") || request.method().equals("PUT")) {
        body = RequestBody.create(new byte[0], JSON);
      }
      b.method(request.method(), body);
      return b.build();
    }

    Duration remaining() {
      return Duration.ofNanos(deadlineNanos - config.timing().nanoTime());
    }

    Call newCall() {
      Call call = config.okHttp().newCall(httpRequest);
      long nanos = Math.max(1, remaining().toNanos());
      call.timeout().timeout(nanos, TimeUnit.NANOSECONDS);
      current = call;
      return call;
    }

    /** Returns how long to wait before the next attempt, or {@code null} to give up. */
    Duration nextWait(Attempt<T> attempt) {
      if (!attempt.retryable || retries >= maxRetries) {
        return null;
      }
      Duration wait =
          attempt.retryAfter != null ? attempt.retryAfter : config.backoff().delay(retries + 1);
      if (wait.compareTo(remaining()) >= 0) {
        return null;
      }
      return wait;
    }
  }
}
