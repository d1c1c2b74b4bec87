package dev.agentauth.client;

import dev.agentauth.client.internal.Endpoints;
import dev.agentauth.client.internal.Page;
import dev.agentauth.client.internal.ReceiptPoller;
import dev.agentauth.client.internal.Transport;
import dev.agentauth.client.internal.Validation;
import dev.agentauth.model.PendingReceipt;
import dev.agentauth.model.ReceiptLookup;
import dev.agentauth.model.ReceiptPage;
import dev.agentauth.model.ReceiptRef;
import dev.agentauth.model.ReceiptSummary;
import dev.agentauth.model.SignedReceipt;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Signed receipts: one per check scope, authorization creation and revocation, and escalation
 * resolution ({@code /v1/receipts}). Signing happens shortly after the decision; {@link
 * #awaitSigned(String, Duration)} polls until it has.
 *
 * <pre>{@code
 * SignedReceipt signed = client.receipts()
 *     .awaitSigned(result.receipt(), Duration.ofSeconds(10));
 * for (ReceiptSummary s : client.receipts().listAutoPaging(
 *     ReceiptListParams.builder().authorizationId(authId).build())) { ... }
 * }</pre>
 *
 * <p>To verify receipts offline (with {@code sdk-verifier}'s {@code ReceiptVerifier} and {@code
 * ChainVerifier}), take their JSON text as served: {@link #awaitSignedJson(String, Duration)} for
 * one receipt, {@link #chainJson(String, Duration)} for all receipts of an authorization, and the
 * keys document from {@link WorkspaceService#keysJson(String)}. Only the text as served is
 * guaranteed to verify; a typed {@link SignedReceipt} serialized again is not (it drops members it
 * does not know, which a newer service may sign).
 *
 * <p>Each operation comes in three forms: with the client's defaults, with per-call {@link
 * RequestOptions}, and {@code ...WithResponse} returning an {@link ApiResponse} with the status,
 * headers and {@code X-Request-Id}. Obtain it from {@code client.receipts()}; the asynchronous twin
 * is {@link ReceiptServiceAsync}. Thread-safe.
 */
public final class ReceiptService {
  private final Transport transport;
  private final ReceiptPoller poller;

  ReceiptService(Transport transport) {
    this.transport = transport;
    this.poller = new ReceiptPoller(transport);
  }

  /**
   * Returns a receipt ({@code GET /v1/receipts/{id}}): a {@link PendingReceipt} while signing is
   * under way, else a {@link ReceiptLookup.Signed}.
   *
   * @param receiptId the receipt's ULID
   * @throws NotFoundException if there is no such receipt in the workspace
   */
  public ReceiptLookup get(String receiptId) {
    return get(receiptId, RequestOptions.none());
  }

  /**
   * Returns a receipt ({@code GET /v1/receipts/{id}}): a {@link PendingReceipt} while signing is
   * under way, else a {@link ReceiptLookup.Signed}.
   *
   * @param receiptId the receipt's ULID
   * @param options per-call timeout, retries, idempotency key, headers
   * @throws NotFoundException if there is no such receipt in the workspace
   */
  public ReceiptLookup get(String receiptId, RequestOptions options) {
    return getWithResponse(receiptId, options).value();
  }

  /**
   * Like {@link #get(String, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param receiptId the receipt's ULID
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiResponse<ReceiptLookup> getWithResponse(String receiptId, RequestOptions options) {
    return transport.execute(Endpoints.getReceipt(receiptId), options);
  }

  /**
   * Returns one page of receipt summaries, oldest first ({@code GET /v1/receipts}). Like {@link
   * #list(ReceiptListParams, RequestOptions)}, the first page, unfiltered, with the client's
   * defaults.
   *
   * @throws BadRequestException if a cursor is reused with other filters
   */
  public ReceiptPage list() {
    return list(ReceiptListParams.builder().build(), RequestOptions.none());
  }

  /**
   * Returns one page of receipt summaries, oldest first ({@code GET /v1/receipts}).
   *
   * @param params filters and paging
   * @throws BadRequestException if a cursor is reused with other filters
   */
  public ReceiptPage list(ReceiptListParams params) {
    return list(params, RequestOptions.none());
  }

  /**
   * Returns one page of receipt summaries, oldest first ({@code GET /v1/receipts}).
   *
   * @param params filters and paging
   * @param options per-call timeout, retries, idempotency key, headers
   * @throws BadRequestException if a cursor is reused with other filters
   */
  public ReceiptPage list(ReceiptListParams params, RequestOptions options) {
    return listWithResponse(params, options).value();
  }

  /**
   * Like {@link #list(ReceiptListParams, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param params filters and paging
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiResponse<ReceiptPage> listWithResponse(
      ReceiptListParams params, RequestOptions options) {
    return transport.execute(Endpoints.listReceipts(params), options);
  }

  /**
   * Returns every element matching {@code params}, across all pages, fetched lazily as iteration
   * proceeds (starting at {@code params}' cursor, if any).
   *
   * @param params filters and paging (the page size applies to each fetch)
   */
  public AutoPagingIterable<ReceiptSummary> listAutoPaging(ReceiptListParams params) {
    return listAutoPaging(params, RequestOptions.none());
  }

  /**
   * Returns every element matching {@code params}, across all pages; each page is fetched with
   * {@code options}.
   *
   * @param params filters and paging (the page size applies to each fetch)
   * @param options per-call timeout, retries and headers of each page fetch
   */
  public AutoPagingIterable<ReceiptSummary> listAutoPaging(
      ReceiptListParams params, RequestOptions options) {
    java.util.Objects.requireNonNull(params, "params");
    return new AutoPagingIterable<>(
        cursor -> {
          var page =
              transport.execute(Endpoints.listReceipts(params.withCursor(cursor)), options).value();
          return new Page<>(page.receipts(), page.hasMore(), page.nextCursor());
        },
        params.cursor());
  }

  /**
   * Waits until receipt {@code receiptId} is signed and returns it, polling with a backoff guided
   * by the service's {@code ready_at_estimate} (never busy-looping, never waiting past {@code
   * timeout}).
   *
   * <p>The typed receipt is for reading. To verify a receipt, use {@link #awaitSignedJson(String,
   * Duration)}: only the text as served is guaranteed to verify, not this record serialized again.
   *
   * @param receiptId the receipt's ULID
   * @param timeout how long to wait in total
   * @throws ReceiptWaitTimeoutException if the receipt is still pending when {@code timeout} ran
   *     out
   * @throws NotFoundException if there is no such receipt in the workspace
   */
  public SignedReceipt awaitSigned(String receiptId, Duration timeout) {
    return awaitSigned(receiptId, timeout, RequestOptions.none());
  }

  /**
   * Like {@link #awaitSigned(String, Duration)}, each poll made with {@code options}.
   *
   * @param receiptId the receipt's ULID
   * @param timeout how long to wait in total
   * @param options headers and retries of each poll (its timeout, if set, applies per poll)
   * @throws ReceiptWaitTimeoutException if the receipt is still pending when {@code timeout} ran
   *     out
   */
  public SignedReceipt awaitSigned(String receiptId, Duration timeout, RequestOptions options) {
    return poller.await(receiptId, timeout, options, null);
  }

  /**
   * Returns the signed receipt for a {@code receipt} member: at once when it is already signed
   * ({@code waitForReceipt}), else after waiting as {@link #awaitSigned(String, Duration)} does,
   * starting with the envelope's {@code ready_at_estimate}.
   *
   * @param receipt a {@code receipt} member of a check result, authorization, revocation or
   *     resolution
   * @param timeout how long to wait in total
   * @throws ReceiptWaitTimeoutException if the receipt is still pending when {@code timeout} ran
   *     out
   */
  public SignedReceipt awaitSigned(ReceiptRef receipt, Duration timeout) {
    java.util.Objects.requireNonNull(receipt, "receipt");
    if (receipt instanceof SignedReceipt signed) {
      return signed;
    }
    PendingReceipt pending = (PendingReceipt) receipt;
    return poller.await(
        pending.receiptId(), timeout, RequestOptions.none(), pending.readyAtEstimate());
  }

  /**
   * Waits like {@link #awaitSigned(String, Duration)}, then returns the signed receipt's JSON text
   * exactly as the service served it (the {@code receipt} member of {@code GET /v1/receipts/{id}}):
   * what an auditor stores, and what {@code ReceiptVerifier.verify(String)} takes. This text is
   * guaranteed to verify against the workspace's keys; a {@link SignedReceipt} serialized again is
   * not.
   *
   * @param receiptId the receipt's ULID
   * @param timeout how long to wait in total
   * @return the receipt object's JSON text, byte for byte as served
   * @throws ReceiptWaitTimeoutException if the receipt is still pending when {@code timeout} ran
   *     out
   * @throws NotFoundException if there is no such receipt in the workspace
   */
  public String awaitSignedJson(String receiptId, Duration timeout) {
    return awaitSignedJson(receiptId, timeout, RequestOptions.none());
  }

  /**
   * Like {@link #awaitSignedJson(String, Duration)}, each poll made with {@code options}.
   *
   * @param receiptId the receipt's ULID
   * @param timeout how long to wait in total
   * @param options headers and retries of each poll (its timeout, if set, applies per poll)
   * @return the receipt object's JSON text, byte for byte as served
   * @throws ReceiptWaitTimeoutException if the receipt is still pending when {@code timeout} ran
   *     out
   * @throws NotFoundException if there is no such receipt in the workspace
   */
  public String awaitSignedJson(String receiptId, Duration timeout, RequestOptions options) {
    return poller.awaitJson(receiptId, timeout, poller.deadline(timeout), options, null);
  }

  /**
   * Returns every receipt of authorization {@code authorizationId} as JSON text exactly as served,
   * oldest first: the issuance order {@code ChainVerifier.verify(List)} takes. Lists the chain
   * ({@code GET /v1/receipts?authorization_id=...}, every page), then fetches each receipt, waiting
   * for any still being signed. An authorization without receipts (or unknown to the workspace)
   * gives an empty list.
   *
   * <p>It makes one request per page of 100 summaries plus one per receipt, and holds the whole
   * chain in memory; for a very long chain, page with {@link #listAutoPaging(ReceiptListParams)}
   * and call {@link #awaitSignedJson(String, Duration)} per receipt instead.
   *
   * @param authorizationId the authorization whose chain to export
   * @param timeout how long to wait in total for receipts still being signed (each request keeps
   *     the client's request timeout)
   * @return the receipts' JSON texts, oldest first; unmodifiable
   * @throws ReceiptWaitTimeoutException if a receipt is still pending when {@code timeout} ran out
   */
  public List<String> chainJson(String authorizationId, Duration timeout) {
    return chainJson(authorizationId, timeout, RequestOptions.none());
  }

  /**
   * Like {@link #chainJson(String, Duration)}, each request made with {@code options}.
   *
   * @param authorizationId the authorization whose chain to export
   * @param timeout how long to wait in total for receipts still being signed
   * @param options headers and retries of each request (its timeout, if set, applies per request)
   * @return the receipts' JSON texts, oldest first; unmodifiable
   * @throws ReceiptWaitTimeoutException if a receipt is still pending when {@code timeout} ran out
   */
  public List<String> chainJson(String authorizationId, Duration timeout, RequestOptions options) {
    ReceiptListParams params = chainParams(authorizationId);
    long deadline = poller.deadline(timeout);
    List<String> chain = new ArrayList<>();
    for (ReceiptSummary s : listAutoPaging(params, options)) {
      chain.add(poller.awaitJson(s.receiptId(), timeout, deadline, options, null));
    }
    return List.copyOf(chain);
  }

  /** The list of a whole chain, in pages of the largest size. */
  static ReceiptListParams chainParams(String authorizationId) {
    Validation.id(authorizationId, "authorization id");
    return ReceiptListParams.builder()
        .authorizationId(authorizationId)
        .limit(Validation.MAX_LIMIT)
        .build();
  }
}
