package dev.agentauth.client.internal;

import dev.agentauth.client.ApiResponse;
import dev.agentauth.client.ConnectionException;
import dev.agentauth.client.ReceiptWaitTimeoutException;
import dev.agentauth.client.RequestOptions;
import dev.agentauth.model.PendingReceipt;
import dev.agentauth.model.ReceiptLookup;
import dev.agentauth.model.SignedReceipt;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Polls {@code GET /v1/receipts/{id}} until the receipt is signed or the caller's timeout runs out.
 * Between polls it waits until the service's {@code ready_at_estimate} when that lies ahead (at
 * least 50 ms, at most 5 s), otherwise with a doubling backoff from 100 ms up to 2 s; it never
 * waits past the deadline and polls once more at the deadline before giving up. An estimate more
 * than 5 s ahead of the local clock is ignored (plain backoff instead): that far ahead it almost
 * always means the server's clock runs ahead of this one, and waiting for it would stall every call
 * for seconds. Not part of the public API.
 */
public final class ReceiptPoller {
  static final Duration MIN_WAIT = Duration.ofMillis(50);
  static final Duration MAX_ESTIMATE_WAIT = Duration.ofSeconds(5);
  static final Duration FIRST_BACKOFF = Duration.ofMillis(100);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(2);
  static final Duration MIN_POLL_TIMEOUT = Duration.ofSeconds(1);

  private final Transport transport;

  /** Creates a poller using {@code transport}. */
  public ReceiptPoller(Transport transport) {
    this.transport = transport;
  }

  /**
   * Waits on the calling thread.
   *
   * @param readyHint the envelope's {@code ready_at_estimate} when known, or {@code null}
   */
  public SignedReceipt await(
      String receiptId, Duration timeout, RequestOptions options, Instant readyHint) {
    long deadline = deadline(timeout);
    ReceiptLookup lookup =
        poll(Endpoints::getReceipt, l -> l, receiptId, timeout, deadline, options, readyHint);
    return ((ReceiptLookup.Signed) lookup).receipt();
  }

  /**
   * Waits on the calling thread and returns the signed receipt's text as served.
   *
   * @param timeout the caller's timeout, named if it runs out
   * @param deadline when to give up, from {@link #deadline(Duration)}; may have passed (one poll)
   */
  public String awaitJson(
      String receiptId, Duration timeout, long deadline, RequestOptions options, Instant hint) {
    return poll(
            Endpoints::getReceiptServed,
            ServedJson.Receipt::lookup,
            receiptId,
            timeout,
            deadline,
            options,
            hint)
        .receiptJson();
  }

  /** Waits without blocking a thread. */
  public CompletableFuture<SignedReceipt> awaitAsync(
      String receiptId, Duration timeout, RequestOptions options, Instant readyHint) {
    long deadline = deadline(timeout);
    return pollAsync(
            Endpoints::getReceipt, l -> l, receiptId, timeout, deadline, options, readyHint)
        .thenApply(lookup -> ((ReceiptLookup.Signed) lookup).receipt());
  }

  /** Like {@link #awaitJson}, without blocking a thread. */
  public CompletableFuture<String> awaitJsonAsync(
      String receiptId, Duration timeout, long deadline, RequestOptions options, Instant hint) {
    return pollAsync(
            Endpoints::getReceiptServed,
            ServedJson.Receipt::lookup,
            receiptId,
            timeout,
            deadline,
            options,
            hint)
        .thenApply(ServedJson.Receipt::receiptJson);
  }

  /**
   * Returns the deadline, on the client's {@link Timing#nanoTime()}, of a wait of {@code timeout}
   * starting now.
   *
   * @throws IllegalArgumentException if {@code timeout} is not positive
   */
  public long deadline(Duration timeout) {
    requirePositive(timeout);
    return transport.config().timing().nanoTime() + timeout.toNanos();
  }

  /** Polls {@code endpoint} until {@code lookupOf} its answer is signed. */
  private <T> T poll(
      Function<String, ApiRequest<T>> endpoint,
      Function<T, ReceiptLookup> lookupOf,
      String receiptId,
      Duration timeout,
      long deadline,
      RequestOptions options,
      Instant readyHint) {
    Validation.id(receiptId, "receipt id");
    sleep(initialWait(readyHint, deadline));
    int polls = 0;
    while (true) {
      ApiResponse<T> r =
          transport.execute(endpoint.apply(receiptId), pollOptions(options, deadline));
      ReceiptLookup lookup = lookupOf.apply(r.value());
      if (lookup instanceof ReceiptLookup.Signed) {
        return r.value();
      }
      Duration remaining = remaining(deadline);
      if (remaining.isNegative() || remaining.isZero()) {
        throw new ReceiptWaitTimeoutException(receiptId, timeout, r.requestId());
      }
      sleep(min(nextWait((PendingReceipt) lookup, polls++), remaining));
    }
  }

  private <T> CompletableFuture<T> pollAsync(
      Function<String, ApiRequest<T>> endpoint,
      Function<T, ReceiptLookup> lookupOf,
      String receiptId,
      Duration timeout,
      long deadline,
      RequestOptions options,
      Instant readyHint) {
    Validation.id(receiptId, "receipt id");
    return transport
        .config()
        .timing()
        .delay(initialWait(readyHint, deadline))
        .thenCompose(v -> pollAsync(endpoint, lookupOf, receiptId, timeout, options, deadline, 0));
  }

  private <T> CompletableFuture<T> pollAsync(
      Function<String, ApiRequest<T>> endpoint,
      Function<T, ReceiptLookup> lookupOf,
      String receiptId,
      Duration timeout,
      RequestOptions options,
      long deadline,
      int polls) {
    return transport
        .executeAsync(endpoint.apply(receiptId), pollOptions(options, deadline))
        .thenCompose(
            r -> {
              ReceiptLookup lookup = lookupOf.apply(r.value());
              if (lookup instanceof ReceiptLookup.Signed) {
                return CompletableFuture.completedFuture(r.value());
              }
              Duration remaining = remaining(deadline);
              if (remaining.isNegative() || remaining.isZero()) {
                return CompletableFuture.failedFuture(
                    new ReceiptWaitTimeoutException(receiptId, timeout, r.requestId()));
              }
              Duration wait = min(nextWait((PendingReceipt) lookup, polls), remaining);
              return transport
                  .config()
                  .timing()
                  .delay(wait)
                  .thenCompose(
                      v ->
                          pollAsync(
                              endpoint, lookupOf, receiptId, timeout, options, deadline,
                              polls + 1));
            });
  }

  /** Returns the wait after poll number {@code polls} (0-based) found {@code pending}. */
  Duration nextWait(PendingReceipt pending, int polls) {
    Duration untilReady = untilEstimate(pending.readyAtEstimate());
    if (untilReady != null && untilReady.compareTo(MIN_WAIT) > 0) {
      return untilReady;
    }
    long factor = 1L << Math.min(polls, 10);
    Duration backoff = FIRST_BACKOFF.multipliedBy(factor);
    return backoff.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff;
  }

  private Duration initialWait(Instant readyHint, long deadline) {
    Duration untilReady = untilEstimate(readyHint);
    if (untilReady == null || untilReady.isNegative()) {
      return Duration.ZERO;
    }
    return min(untilReady, remaining(deadline));
  }

  /**
   * Returns the time from now until {@code ready}, or {@code null} when there is no estimate or it
   * lies more than {@link #MAX_ESTIMATE_WAIT} ahead. An estimate that far ahead is far more likely
   * a server clock running ahead of this one (skew, or a test clock moved forward) than a real
   * signing backlog; the backoff polls reasonably in both cases.
   */
  private Duration untilEstimate(Instant ready) {
    if (ready == null) {
      return null;
    }
    Duration untilReady = Duration.between(transport.config().timing().now(), ready);
    return untilReady.compareTo(MAX_ESTIMATE_WAIT) > 0 ? null : untilReady;
  }

  private RequestOptions pollOptions(RequestOptions options, long deadline) {
    RequestOptions base = options == null ? RequestOptions.none() : options;
    if (base.timeout() != null) {
      return base;
    }
    Duration t = remaining(deadline);
    if (t.compareTo(MIN_POLL_TIMEOUT) < 0) {
      t = MIN_POLL_TIMEOUT;
    }
    Duration max = transport.config().requestTimeout();
    return base.toBuilder().timeout(t.compareTo(max) > 0 ? max : t).build();
  }

  private Duration remaining(long deadline) {
    return Duration.ofNanos(deadline - transport.config().timing().nanoTime());
  }

  private void sleep(Duration d) {
    if (d.isZero() || d.isNegative()) {
      return;
    }
    try {
      transport.config().timing().sleep(d);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectionException(
          "interrupted while waiting for a receipt to be signed", null, e);
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  private static void requirePositive(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isZero() || timeout.isNegative()) {
      throw new IllegalArgumentException("expected a positive timeout, found: " + timeout);
    }
  }
}
