package dev.agentauth.client;

import dev.agentauth.client.internal.Endpoints;
import dev.agentauth.client.internal.Futures;
import dev.agentauth.client.internal.ReceiptPoller;
import dev.agentauth.client.internal.Transport;
import dev.agentauth.model.PendingReceipt;
import dev.agentauth.model.ReceiptLookup;
import dev.agentauth.model.ReceiptPage;
import dev.agentauth.model.ReceiptRef;
import dev.agentauth.model.ReceiptSummary;
import dev.agentauth.model.SignedReceipt;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The asynchronous twin of {@link ReceiptService}: the same operations, returning {@link
 * CompletableFuture}s completed on OkHttp's dispatcher threads (keep continuations short or hop to
 * your own executor). Failures complete the future exceptionally with the same {@link
 * AgentAuthException}s the blocking service throws; invalid arguments throw at once. Cancelling a
 * future cancels its HTTP call. Obtain it from {@code client.async().receipts()}.
 *
 * <p>Thread-safe.
 */
public final class ReceiptServiceAsync {
  private final Transport transport;
  private final ReceiptPoller poller;

  ReceiptServiceAsync(Transport transport) {
    this.transport = transport;
    this.poller = new ReceiptPoller(transport);
  }

  /**
   * Returns a receipt ({@code GET /v1/receipts/{id}}): a {@link PendingReceipt} while signing is
   * under way, else a {@link ReceiptLookup.Signed}. Completes exceptionally with {@link
   * NotFoundException} where the blocking service would throw.
   *
   * @param receiptId the receipt's ULID
   */
  public CompletableFuture<ReceiptLookup> get(String receiptId) {
    return get(receiptId, RequestOptions.none());
  }

  /**
   * Returns a receipt ({@code GET /v1/receipts/{id}}): a {@link PendingReceipt} while signing is
   * under way, else a {@link ReceiptLookup.Signed}. Completes exceptionally with {@link
   * NotFoundException} where the blocking service would throw.
   *
   * @param receiptId the receipt's ULID
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ReceiptLookup> get(String receiptId, RequestOptions options) {
    return Futures.map(getWithResponse(receiptId, options), ApiResponse::value);
  }

  /**
   * Like {@link #get(String, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param receiptId the receipt's ULID
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiResponse<ReceiptLookup>> getWithResponse(
      String receiptId, RequestOptions options) {
    return transport.executeAsync(Endpoints.getReceipt(receiptId), options);
  }

  /**
   * Returns one page of receipt summaries, oldest first ({@code GET /v1/receipts}). Completes
   * exceptionally with {@link BadRequestException} where the blocking service would throw. Like
   * {@link #list(ReceiptListParams, RequestOptions)}, the first page, unfiltered, with the client's
   * defaults.
   */
  public CompletableFuture<ReceiptPage> list() {
    return list(ReceiptListParams.builder().build(), RequestOptions.none());
  }

  /**
   * Returns one page of receipt summaries, oldest first ({@code GET /v1/receipts}). Completes
   * exceptionally with {@link BadRequestException} where the blocking service would throw.
   *
   * @param params filters and paging
   */
  public CompletableFuture<ReceiptPage> list(ReceiptListParams params) {
    return list(params, RequestOptions.none());
  }

  /**
   * Returns one page of receipt summaries, oldest first ({@code GET /v1/receipts}). Completes
   * exceptionally with {@link BadRequestException} where the blocking service would throw.
   *
   * @param params filters and paging
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ReceiptPage> list(ReceiptListParams params, RequestOptions options) {
    return Futures.map(listWithResponse(params, options), ApiResponse::value);
  }

  /**
   * Like {@link #list(ReceiptListParams, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param params filters and paging
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiResponse<ReceiptPage>> listWithResponse(
      ReceiptListParams params, RequestOptions options) {
    return transport.executeAsync(Endpoints.listReceipts(params), options);
  }

  /**
   * Completes with receipt {@code receiptId} once signed, polling with a backoff guided by the
   * service's {@code ready_at_estimate}; waits between polls occupy no thread. Fails with {@link
   * ReceiptWaitTimeoutException} if still pending when {@code timeout} ran out.
   *
   * <p>The typed receipt is for reading. To verify a receipt, use {@link #awaitSignedJson(String,
   * Duration)}: only the text as served is guaranteed to verify, not this record serialized again.
   *
   * @param receiptId the receipt's ULID
   * @param timeout how long to wait in total
   */
  public CompletableFuture<SignedReceipt> awaitSigned(String receiptId, Duration timeout) {
    return awaitSigned(receiptId, timeout, RequestOptions.none());
  }

  /**
   * Like {@link #awaitSigned(String, Duration)}, each poll made with {@code options}.
   *
   * @param receiptId the receipt's ULID
   * @param timeout how long to wait in total
   * @param options headers and retries of each poll (its timeout, if set, applies per poll)
   */
  public CompletableFuture<SignedReceipt> awaitSigned(
      String receiptId, Duration timeout, RequestOptions options) {
    return poller.awaitAsync(receiptId, timeout, options, null);
  }

  /**
   * Completes with the signed receipt for a {@code receipt} member: at once when it is already
   * signed, else as {@link #awaitSigned(String, Duration)}, starting with the envelope's {@code
   * ready_at_estimate}.
   *
   * @param receipt a {@code receipt} member of a check result, authorization, revocation or
   *     resolution
   * @param timeout how long to wait in total
   */
  public CompletableFuture<SignedReceipt> awaitSigned(ReceiptRef receipt, Duration timeout) {
    java.util.Objects.requireNonNull(receipt, "receipt");
    if (receipt instanceof SignedReceipt signed) {
      return CompletableFuture.completedFuture(signed);
    }
    PendingReceipt pending = (PendingReceipt) receipt;
    return poller.awaitAsync(
        pending.receiptId(), timeout, RequestOptions.none(), pending.readyAtEstimate());
  }

  /**
   * Completes like {@link #awaitSigned(String, Duration)} with the signed receipt's JSON text
   * exactly as the service served it, the form guaranteed to verify (see {@link
   * ReceiptService#awaitSignedJson(String, Duration)}).
   *
   * @param receiptId the receipt's ULID
   * @param timeout how long to wait in total
   */
  public CompletableFuture<String> awaitSignedJson(String receiptId, Duration timeout) {
    return awaitSignedJson(receiptId, timeout, RequestOptions.none());
  }

  /**
   * Like {@link #awaitSignedJson(String, Duration)}, each poll made with {@code options}.
   *
   * @param receiptId the receipt's ULID
   * @param timeout how long to wait in total
   * @param options headers and retries of each poll (its timeout, if set, applies per poll)
   */
  public CompletableFuture<String> awaitSignedJson(
      String receiptId, Duration timeout, RequestOptions options) {
    return poller.awaitJsonAsync(receiptId, timeout, poller.deadline(timeout), options, null);
  }

  /**
   * Completes with every receipt of authorization {@code authorizationId} as JSON text exactly as
   * served, oldest first, as {@link ReceiptService#chainJson(String, Duration)} returns it. Pages
   * and receipts are fetched one after the other; no thread waits.
   *
   * @param authorizationId the authorization whose chain to export
   * @param timeout how long to wait in total for receipts still being signed
   */
  public CompletableFuture<List<String>> chainJson(String authorizationId, Duration timeout) {
    return chainJson(authorizationId, timeout, RequestOptions.none());
  }

  /**
   * Like {@link #chainJson(String, Duration)}, each request made with {@code options}.
   *
   * @param authorizationId the authorization whose chain to export
   * @param timeout how long to wait in total for receipts still being signed
   * @param options headers and retries of each request (its timeout, if set, applies per request)
   */
  public CompletableFuture<List<String>> chainJson(
      String authorizationId, Duration timeout, RequestOptions options) {
    ReceiptListParams params = ReceiptService.chainParams(authorizationId);
    long deadline = poller.deadline(timeout);
    return chainFrom(params, null, timeout, deadline, options, new ArrayList<>());
  }

  /** Fetches the page at {@code cursor} and its receipts, then the pages after it. */
  private CompletableFuture<List<String>> chainFrom(
      ReceiptListParams params,
      String cursor,
      Duration timeout,
      long deadline,
      RequestOptions options,
      List<String> chain) {
    return transport
        .executeAsync(Endpoints.listReceipts(params.withCursor(cursor)), options)
        .thenCompose(
            r -> {
              ReceiptPage page = r.value();
              CompletableFuture<Void> receipts = CompletableFuture.completedFuture(null);
              for (ReceiptSummary s : page.receipts()) {
                receipts =
                    receipts.thenCompose(
                        v ->
                            poller
                                .awaitJsonAsync(s.receiptId(), timeout, deadline, options, null)
                                .thenAccept(chain::add));
              }
              return receipts.thenCompose(
                  v -> {
                    if (!page.hasMore()) {
                      return CompletableFuture.completedFuture(List.copyOf(chain));
                    }
                    String next = page.nextCursor();
                    if (next == null || next.equals(cursor)) {
                      return CompletableFuture.failedFuture(
                          new MalformedResponseException(
                              next == null
                                  ? "the list answered has_more=true without a next_cursor;"
                                      + " cannot fetch the next page"
                                  : "the list answered the same next_cursor twice; stopping to"
                                      + " avoid an endless loop",
                              200,
                              r.requestId(),
                              null));
                    }
                    return chainFrom(params, next, timeout, deadline, options, chain);
                  });
            });
  }
}
