package dev.agentauth.client;

import dev.agentauth.client.internal.Endpoints;
import dev.agentauth.client.internal.Futures;
import dev.agentauth.client.internal.Transport;
import dev.agentauth.model.ConfirmationResolution;
import dev.agentauth.model.ConfirmationVia;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The asynchronous twin of {@link ConfirmationService}: the same operations, returning {@link
 * CompletableFuture}s completed on OkHttp's dispatcher threads (keep continuations short or hop to
 * your own executor). Failures complete the future exceptionally with the same {@link
 * AgentAuthException}s the blocking service throws; invalid arguments throw at once. Cancelling a
 * future cancels its HTTP call. Obtain it from {@code client.async().confirmations()}.
 *
 * <p>Thread-safe.
 */
public final class ConfirmationServiceAsync {
  private final Transport transport;

  ConfirmationServiceAsync(Transport transport) {
    this.transport = transport;
  }

  /**
   * Records the end-user's approval; re-checks of the same scope and resource within {@code ttl}
   * are allowed. Completes exceptionally with {@link GoneException} where the blocking service
   * would throw. Like {@link #approve(String, Duration, RequestOptions)}, with the service's
   * default window (60 s), with the client's defaults.
   *
   * @param nonce the {@code confirm_nonce} of the result
   * @throws IllegalArgumentException (immediately) if {@code ttl} is outside 1–300 s
   */
  public CompletableFuture<ConfirmationResolution> approve(String nonce) {
    return approve(nonce, null, RequestOptions.none());
  }

  /**
   * Records the end-user's approval; re-checks of the same scope and resource within {@code ttl}
   * are allowed. Completes exceptionally with {@link GoneException} where the blocking service
   * would throw.
   *
   * @param nonce the {@code confirm_nonce} of the result
   * @param ttl how long the approval lasts for re-checks, 1–300 s
   * @throws IllegalArgumentException (immediately) if {@code ttl} is outside 1–300 s
   */
  public CompletableFuture<ConfirmationResolution> approve(String nonce, Duration ttl) {
    return approve(nonce, ttl, RequestOptions.none());
  }

  /**
   * Records the end-user's approval; re-checks of the same scope and resource within {@code ttl}
   * are allowed. Completes exceptionally with {@link GoneException} where the blocking service
   * would throw.
   *
   * @param nonce the {@code confirm_nonce} of the result
   * @param ttl how long the approval lasts for re-checks, 1–300 s
   * @param options per-call timeout, retries, idempotency key, headers
   * @throws IllegalArgumentException (immediately) if {@code ttl} is outside 1–300 s
   */
  public CompletableFuture<ConfirmationResolution> approve(
      String nonce, Duration ttl, RequestOptions options) {
    return Futures.map(approveWithResponse(nonce, ttl, options), ApiResponse::value);
  }

  /**
   * Like {@link #approve(String, Duration, RequestOptions)}, returning the status, headers and
   * {@code X-Request-Id} with the value.
   *
   * @param nonce the {@code confirm_nonce} of the result
   * @param ttl how long the approval lasts for re-checks, 1–300 s
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiResponse<ConfirmationResolution>> approveWithResponse(
      String nonce, Duration ttl, RequestOptions options) {
    return transport.executeAsync(Endpoints.approveConfirmation(nonce, ttl), options);
  }

  /**
   * Records that the end-user declined ({@code denied_by_user}); the nonce is used up. Completes
   * exceptionally with {@link GoneException} where the blocking service would throw.
   *
   * @param nonce the {@code confirm_nonce} of the result
   */
  public CompletableFuture<ConfirmationResolution> decline(String nonce) {
    return decline(nonce, RequestOptions.none());
  }

  /**
   * Records that the end-user declined ({@code denied_by_user}); the nonce is used up. Completes
   * exceptionally with {@link GoneException} where the blocking service would throw.
   *
   * @param nonce the {@code confirm_nonce} of the result
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ConfirmationResolution> decline(String nonce, RequestOptions options) {
    return Futures.map(declineWithResponse(nonce, options), ApiResponse::value);
  }

  /**
   * Like {@link #decline(String, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param nonce the {@code confirm_nonce} of the result
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiResponse<ConfirmationResolution>> declineWithResponse(
      String nonce, RequestOptions options) {
    return transport.executeAsync(Endpoints.declineConfirmation(nonce), options);
  }

  /**
   * Records the end-user's approval and where it came from ({@code via}, recorded in the receipt of
   * the allow that uses it); re-checks of the same scope and resource within {@code ttl} are
   * allowed.
   *
   * @param nonce the {@code confirm_nonce} of the result
   * @param ttl how long the approval lasts for re-checks, 1–300 s, or {@code null} for 60 s
   * @param via where the answer came from, or {@code null} for {@code api}
   * @param options per-call timeout, retries, idempotency key, headers
   * @throws IllegalArgumentException if {@code ttl} is outside 1–300 s
   */
  public CompletableFuture<ConfirmationResolution> approve(
      String nonce, Duration ttl, ConfirmationVia via, RequestOptions options) {
    return Futures.map(approveWithResponse(nonce, ttl, via, options), ApiResponse::value);
  }

  /**
   * Like {@link #approve(String, Duration, ConfirmationVia, RequestOptions)}, returning the status,
   * headers and {@code X-Request-Id} with the value.
   *
   * @param nonce the {@code confirm_nonce} of the result
   * @param ttl how long the approval lasts for re-checks, 1–300 s, or {@code null} for 60 s
   * @param via where the answer came from, or {@code null} for {@code api}
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiResponse<ConfirmationResolution>> approveWithResponse(
      String nonce, Duration ttl, ConfirmationVia via, RequestOptions options) {
    return transport.executeAsync(Endpoints.approveConfirmation(nonce, ttl, via), options);
  }

  /**
   * Records that the end-user declined ({@code denied_by_user}) and where the answer came from; the
   * nonce is used up.
   *
   * @param nonce the {@code confirm_nonce} of the result
   * @param via where the answer came from, or {@code null} for {@code api}
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ConfirmationResolution> decline(
      String nonce, ConfirmationVia via, RequestOptions options) {
    return Futures.map(declineWithResponse(nonce, via, options), ApiResponse::value);
  }

  /**
   * Like {@link #decline(String, ConfirmationVia, RequestOptions)}, returning the status, headers
   * and {@code X-Request-Id} with the value.
   *
   * @param nonce the {@code confirm_nonce} of the result
   * @param via where the answer came from, or {@code null} for {@code api}
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiResponse<ConfirmationResolution>> declineWithResponse(
      String nonce, ConfirmationVia via, RequestOptions options) {
    return transport.executeAsync(Endpoints.declineConfirmation(nonce, via), options);
  }
}
