package dev.agentauth.client;

import dev.agentauth.client.internal.CheckFallback;
import dev.agentauth.client.internal.Endpoints;
import dev.agentauth.client.internal.Errors;
import dev.agentauth.client.internal.FallbackLog;
import dev.agentauth.client.internal.Futures;
import dev.agentauth.client.internal.Transport;
import dev.agentauth.model.CheckResponse;
import java.util.concurrent.CompletableFuture;

/**
 * The asynchronous view of an {@link AgentAuthClient} ({@code client.async()}): the same operations
 * returning {@link CompletableFuture}s. Calls run on OkHttp's own dispatcher and waits between
 * retries on a timer, so no thread is blocked while waiting. Futures complete on OkHttp's
 * dispatcher threads; keep continuations short or move to your executor with {@code
 * thenApplyAsync(fn, executor)}.
 *
 * <pre>{@code
 * client.async().check(CheckParams.of(authId, "email.send"))
 *     .thenAccept(r -> {
 *       if (r.results().get("email.send").isAllowed()) { sendEmail(); }
 *     });
 * }</pre>
 *
 * <p>Futures fail with the same {@link AgentAuthException}s the blocking client throws (not wrapped
 * in {@link java.util.concurrent.CompletionException} when read with {@code exceptionally} on the
 * returned future itself). Invalid arguments throw immediately. Cancelling a future cancels its
 * HTTP call. Thread-safe; shares the configuration and connection pool of its client.
 */
public final class AgentAuthAsyncClient {
  private final Transport transport;
  private final FallbackPolicy fallback;
  private final FallbackLog fallbackLog;
  private final AuthorizationServiceAsync authorizations;
  private final BundleServiceAsync bundles;
  private final ConfirmationServiceAsync confirmations;
  private final EscalationServiceAsync escalations;
  private final ReceiptServiceAsync receipts;
  private final TombstoneServiceAsync tombstones;
  private final ApiKeyServiceAsync apiKeys;
  private final WebhookServiceAsync webhooks;
  private final WorkspaceServiceAsync workspaces;

  AgentAuthAsyncClient(Transport transport, FallbackPolicy fallback, FallbackLog fallbackLog) {
    this.transport = transport;
    this.fallback = fallback;
    this.fallbackLog = fallbackLog;
    this.authorizations = new AuthorizationServiceAsync(transport);
    this.bundles = new BundleServiceAsync(transport);
    this.confirmations = new ConfirmationServiceAsync(transport);
    this.escalations = new EscalationServiceAsync(transport);
    this.receipts = new ReceiptServiceAsync(transport);
    this.tombstones = new TombstoneServiceAsync(transport);
    this.apiKeys = new ApiKeyServiceAsync(transport);
    this.webhooks = new WebhookServiceAsync(transport);
    this.workspaces = new WorkspaceServiceAsync(transport);
  }

  /** Returns the authorization operations. */
  public AuthorizationServiceAsync authorizations() {
    return authorizations;
  }

  /** Returns the agent scope bundle operations. */
  public BundleServiceAsync bundles() {
    return bundles;
  }

  /** Returns the confirmation operations. */
  public ConfirmationServiceAsync confirmations() {
    return confirmations;
  }

  /** Returns the escalation operations. */
  public EscalationServiceAsync escalations() {
    return escalations;
  }

  /** Returns the receipt operations. */
  public ReceiptServiceAsync receipts() {
    return receipts;
  }

  /** Returns the tombstone operations. */
  public TombstoneServiceAsync tombstones() {
    return tombstones;
  }

  /**
   * Returns the API key operations ({@code /v1/api-keys}): create, list and revoke need a {@code
   * full} key; the calling key's own record needs any.
   */
  public ApiKeyServiceAsync apiKeys() {
    return apiKeys;
  }

  /** The workspace's webhooks: create, list, delete, and their delivery log. */
  public WebhookServiceAsync webhooks() {
    return webhooks;
  }

  /** Returns the public workspace operations. */
  public WorkspaceServiceAsync workspaces() {
    return workspaces;
  }

  /**
   * Decides the scopes of {@code params}, as {@link AgentAuthClient#check(CheckParams)}: denials
   * are results, and the fallback policy answers when the service cannot.
   *
   * @param params the validated check
   */
  public CompletableFuture<CheckResponse> check(CheckParams params) {
    return check(params, RequestOptions.none());
  }

  /**
   * Like {@link #check(CheckParams)} with per-call options.
   *
   * @param params the validated check
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<CheckResponse> check(CheckParams params, RequestOptions options) {
    return Futures.map(checkWithResponse(params, options), ApiResponse::value);
  }

  /**
   * Like {@link #check(CheckParams, RequestOptions)}, with the status, headers and {@code
   * X-Request-Id}.
   *
   * @param params the validated check
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CompletableFuture<ApiResponse<CheckResponse>> checkWithResponse(
      CheckParams params, RequestOptions options) {
    CompletableFuture<ApiResponse<CheckResponse>> source =
        transport.executeAsync(Endpoints.check(params), options);
    CompletableFuture<ApiResponse<CheckResponse>> result = new CompletableFuture<>();
    source.whenComplete(
        (r, e) -> {
          if (e == null) {
            fallbackLog.answered();
            result.complete(r);
            return;
          }
          Throwable t = Errors.unwrap(e);
          if (t instanceof AgentAuthException a && CheckFallback.applies(fallback, a)) {
            result.complete(CheckFallback.respond(fallback, params, a, fallbackLog));
          } else {
            result.completeExceptionally(t);
          }
        });
    result.whenComplete(
        (r, e) -> {
          if (result.isCancelled()) {
            source.cancel(true);
          }
        });
    return result;
  }
}
