package dev.agentauth.client;

import dev.agentauth.client.internal.Endpoints;
import dev.agentauth.client.internal.Transport;
import dev.agentauth.model.ConfirmationResolution;
import dev.agentauth.model.ConfirmationVia;
import java.time.Duration;

/**
 * End-user confirmations of {@code confirm} results ({@code POST /v1/confirmations/{nonce}}). Call
 * these only after explicit input from the end-user, never automatically; then re-check the same
 * scope and resource to obtain {@code allow}.
 *
 * <pre>{@code
 * CheckResult r = response.results().get("email.send");
 * if (Decision.CONFIRM.equals(r.decision()) && askUser(r.confirmPromptHint())) {
 *   client.confirmations().approve(r.confirmNonce());
 *   response = client.check(sameParams); // now allow
 * }
 * }</pre>
 *
 * <p>Each operation comes in three forms: with the client's defaults, with per-call {@link
 * RequestOptions}, and {@code ...WithResponse} returning an {@link ApiResponse} with the status,
 * headers and {@code X-Request-Id}. Obtain it from {@code client.confirmations()}; the asynchronous
 * twin is {@link ConfirmationServiceAsync}. Thread-safe.
 */
public final class ConfirmationService {
  private final Transport transport;

  ConfirmationService(Transport transport) {
    this.transport = transport;
  }

  /**
   * Records the end-user's approval; re-checks of the same scope and resource within {@code ttl}
   * are allowed. Like {@link #approve(String, Duration, RequestOptions)}, with the service's
   * default window (60 s), with the client's defaults.
   *
   * @param nonce the {@code confirm_nonce} of the result
   * @throws IllegalArgumentException if {@code ttl} is outside 1–300 s
   * @throws GoneException if the nonce expired, was used, or is unknown ({@code nonce_gone})
   */
  public ConfirmationResolution approve(String nonce) {
    return approve(nonce, null, RequestOptions.none());
  }

  /**
   * Records the end-user's approval; re-checks of the same scope and resource within {@code ttl}
   * are allowed.
   *
   * @param nonce the {@code confirm_nonce} of the result
   * @param ttl how long the approval lasts for re-checks, 1–300 s
   * @throws IllegalArgumentException if {@code ttl} is outside 1–300 s
   * @throws GoneException if the nonce expired, was used, or is unknown ({@code nonce_gone})
   */
  public ConfirmationResolution approve(String nonce, Duration ttl) {
    return approve(nonce, ttl, RequestOptions.none());
  }

  /**
   * Records the end-user's approval; re-checks of the same scope and resource within {@code ttl}
   * are allowed.
   *
   * @param nonce the {@code confirm_nonce} of the result
   * @param ttl how long the approval lasts for re-checks, 1–300 s
   * @param options per-call timeout, retries, idempotency key, headers
   * @throws IllegalArgumentException if {@code ttl} is outside 1–300 s
   * @throws GoneException if the nonce expired, was used, or is unknown ({@code nonce_gone})
   */
  public ConfirmationResolution approve(String nonce, Duration ttl, RequestOptions options) {
    return approveWithResponse(nonce, ttl, options).value();
  }

  /**
   * Like {@link #approve(String, Duration, RequestOptions)}, returning the status, headers and
   * {@code X-Request-Id} with the value.
   *
   * @param nonce the {@code confirm_nonce} of the result
   * @param ttl how long the approval lasts for re-checks, 1–300 s
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiResponse<ConfirmationResolution> approveWithResponse(
      String nonce, Duration ttl, RequestOptions options) {
    return transport.execute(Endpoints.approveConfirmation(nonce, ttl), options);
  }

  /**
   * Records that the end-user declined ({@code denied_by_user}); the nonce is used up.
   *
   * @param nonce the {@code confirm_nonce} of the result
   * @throws GoneException if the nonce expired, was used, or is unknown ({@code nonce_gone})
   */
  public ConfirmationResolution decline(String nonce) {
    return decline(nonce, RequestOptions.none());
  }

  /**
   * Records that the end-user declined ({@code denied_by_user}); the nonce is used up.
   *
   * @param nonce the {@code confirm_nonce} of the result
   * @param options per-call timeout, retries, idempotency key, headers
   * @throws GoneException if the nonce expired, was used, or is unknown ({@code nonce_gone})
   */
  public ConfirmationResolution decline(String nonce, RequestOptions options) {
    return declineWithResponse(nonce, options).value();
  }

  /**
   * Like {@link #decline(String, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value.
   *
   * @param nonce the {@code confirm_nonce} of the result
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiResponse<ConfirmationResolution> declineWithResponse(
      String nonce, RequestOptions options) {
    return transport.execute(Endpoints.declineConfirmation(nonce), options);
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
  public ConfirmationResolution approve(
      String nonce, Duration ttl, ConfirmationVia via, RequestOptions options) {
    return approveWithResponse(nonce, ttl, via, options).value();
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
  public ApiResponse<ConfirmationResolution> approveWithResponse(
      String nonce, Duration ttl, ConfirmationVia via, RequestOptions options) {
    return transport.execute(Endpoints.approveConfirmation(nonce, ttl, via), options);
  }

  /**
   * Records that the end-user declined ({@code denied_by_user}) and where the answer came from; the
   * nonce is used up.
   *
   * @param nonce the {@code confirm_nonce} of the result
   * @param via where the answer came from, or {@code null} for {@code api}
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ConfirmationResolution decline(String nonce, ConfirmationVia via, RequestOptions options) {
    return declineWithResponse(nonce, via, options).value();
  }

  /**
   * Like {@link #decline(String, ConfirmationVia, RequestOptions)}, returning the status, headers
   * and {@code X-Request-Id} with the value.
   *
   * @param nonce the {@code confirm_nonce} of the result
   * @param via where the answer came from, or {@code null} for {@code api}
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiResponse<ConfirmationResolution> declineWithResponse(
      String nonce, ConfirmationVia via, RequestOptions options) {
    return transport.execute(Endpoints.declineConfirmation(nonce, via), options);
  }
}
