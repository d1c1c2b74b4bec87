package dev.agentauth.client;

import dev.agentauth.client.internal.Endpoints;
import dev.agentauth.client.internal.Page;
import dev.agentauth.client.internal.ReceiptPoller;
import dev.agentauth.client.internal.Transport;
import dev.agentauth.model.PendingReceipt;
import dev.agentauth.model.ReceiptLookup;
import dev.agentauth.model.ReceiptPage;
import dev.agentauth.model.ReceiptRef;
import dev.agentauth.model.ReceiptSummary;
import dev.agentauth.model.SignedReceipt;
import java.time.Duration;

/**
 * Signed receipts: one per check scope, authorization creation and revocation, and escalation
 * resolution ({@code /v1/receipts}). Signing happens shortly after the decision; {@link
 * #awaitSigned(String, Duration)} polls until it has. Verify signed receipts offline with the
 * workspace's keys ({@link WorkspaceService#keys(String)}) and {@code sdk-verifier}.
 *
 * <pre>{@code
 * SignedReceipt signed = client.receipts()
 *     .awaitSigned(result.receipt(), Duration.ofSeconds(10));
 * for (ReceiptSummary s : client.receipts().listAutoPaging(
 *     ReceiptListParams.builder().authorizationId(authId).build())) { ... }
 * }</pre>
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
   * Waits like {@link #awaitSigned(String, Duration)}, then returns the signed receipt as the JSON
   * text of the service's answer — what an auditor stores and verifies offline. Verify this text
   * rather than a re-serialized {@link SignedReceipt}: the signature covers the receipt as issued.
   *
   * @param receiptId the receipt's ULID
   * @param timeout how long to wait in total
   * @throws ReceiptWaitTimeoutException if the receipt is still pending when {@code timeout} ran
   *     out
   * @throws NotFoundException if there is no such receipt in the workspace
   */
  public String awaitSignedJson(String receiptId, Duration timeout) {
    com.fasterxml.jackson.databind.JsonNode lookup = fetchTree(receiptId);
    if (!"signed".equals(lookup.path("status").asText())) {
      awaitSigned(receiptId, timeout); // signed receipts never change: fetch the text once more
      lookup = fetchTree(receiptId);
    }
    return lookup.get("receipt").toString();
  }

  private com.fasterxml.jackson.databind.JsonNode fetchTree(String receiptId) {
    return transport.execute(Endpoints.getReceiptTree(receiptId), RequestOptions.none()).value();
  }
}
