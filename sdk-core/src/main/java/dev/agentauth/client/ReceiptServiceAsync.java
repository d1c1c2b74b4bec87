package dev.agentauth.client;

import dev.agentauth.client.internal.Endpoints;
import dev.agentauth.client.internal.Futures;
import dev.agentauth.client.internal.ReceiptPoller;
import dev.agentauth.client.internal.Transport;
import dev.agentauth.model.PendingReceipt;
import dev.agentauth.model.ReceiptLookup;
import dev.agentauth.model.ReceiptPage;
import dev.agentauth.model.ReceiptRef;
import dev.agentauth.model.SignedReceipt;
import java.time.Duration;
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
}
