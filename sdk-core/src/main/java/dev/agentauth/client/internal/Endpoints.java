package dev.agentauth.client.internal;

import dev.agentauth.client.ApiKeyCreateParams;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.client.AuthorizationListParams;
import dev.agentauth.client.AuthorizationRevokeParams;
import dev.agentauth.client.BundleParams;
import dev.agentauth.client.CheckParams;
import dev.agentauth.client.EscalationListParams;
import dev.agentauth.client.EscalationResolveParams;
import dev.agentauth.client.ListParams;
import dev.agentauth.client.ReceiptListParams;
import dev.agentauth.client.WebhookCreateParams;
import dev.agentauth.model.ApiKey;
import dev.agentauth.model.ApiKeyPage;
import dev.agentauth.model.Authorization;
import dev.agentauth.model.AuthorizationPage;
import dev.agentauth.model.Bundle;
import dev.agentauth.model.BundlePage;
import dev.agentauth.model.CheckResponse;
import dev.agentauth.model.ConfirmationRequest;
import dev.agentauth.model.ConfirmationResolution;
import dev.agentauth.model.ConfirmationVia;
import dev.agentauth.model.Escalation;
import dev.agentauth.model.EscalationPage;
import dev.agentauth.model.EscalationResolveResponse;
import dev.agentauth.model.ReceiptLookup;
import dev.agentauth.model.ReceiptPage;
import dev.agentauth.model.RevokeAuthorizationResponse;
import dev.agentauth.model.Tombstone;
import dev.agentauth.model.TombstonePage;
import dev.agentauth.model.TombstoneRequest;
import dev.agentauth.model.Webhook;
import dev.agentauth.model.WebhookDeliveryPage;
import dev.agentauth.model.WebhookPage;
import dev.agentauth.model.WorkspaceKeys;
import java.time.Duration;
import java.util.Objects;

/**
 * Every endpoint of the API, described once: method, path, body, response type. The sync and async
 * services both call these, so they cannot drift. Not part of the public API.
 */
public final class Endpoints {

  /** Longest confirmation approval window the service accepts. */
  public static final Duration MAX_CONFIRMATION_TTL = Duration.ofSeconds(300);

  private Endpoints() {}

  private static final String V1 = "v1";

  /** {@code POST /v1/check}. */
  public static ApiRequest<CheckResponse> check(CheckParams p) {
    Objects.requireNonNull(p, "params");
    return ApiRequest.of("POST", "/v1/check", CheckResponse.class, V1, "check")
        .body(p.body())
        .check()
        .waitForReceipt(p.waitForReceipt())
        .build();
  }

  /** {@code POST /v1/authorizations}. */
  public static ApiRequest<Authorization> createAuthorization(AuthorizationCreateParams p) {
    Objects.requireNonNull(p, "params");
    return ApiRequest.of("POST", "/v1/authorizations", Authorization.class, V1, "authorizations")
        .body(p.body())
        .waitForReceipt(p.waitForReceipt())
        .build();
  }

  /** {@code GET /v1/authorizations/{id}}. */
  public static ApiRequest<Authorization> getAuthorization(String id) {
    return byId("authorizations", "authorization id", id, Authorization.class);
  }

  /** {@code GET /v1/authorizations}. */
  public static ApiRequest<AuthorizationPage> listAuthorizations(AuthorizationListParams p) {
    Objects.requireNonNull(p, "params");
    return ApiRequest.of("GET", "/v1/authorizations", AuthorizationPage.class, V1, "authorizations")
        .query(p.toQuery())
        .build();
  }

  /** {@code DELETE /v1/authorizations/{id}}. */
  public static ApiRequest<RevokeAuthorizationResponse> revokeAuthorization(
      String id, AuthorizationRevokeParams p) {
    Objects.requireNonNull(p, "params");
    return ApiRequest.of(
            "DELETE",
            "/v1/authorizations/{id}",
            RevokeAuthorizationResponse.class,
            V1,
            "authorizations",
            Validation.id(id, "authorization id"))
        .body(p.body())
        .waitForReceipt(p.waitForReceipt())
        .build();
  }

  /** {@code POST /v1/agent-scope-bundles}. */
  public static ApiRequest<Bundle> createBundle(BundleParams p) {
    Objects.requireNonNull(p, "params");
    if (p.id() == null) {
      throw new IllegalArgumentException("expected the bundle id to create, found none");
    }
    return ApiRequest.of("POST", "/v1/agent-scope-bundles", Bundle.class, V1, "agent-scope-bundles")
        .body(p.body())
        .build();
  }

  /** {@code GET /v1/agent-scope-bundles/{id}}. */
  public static ApiRequest<Bundle> getBundle(String id) {
    return byId("agent-scope-bundles", "bundle id", id, Bundle.class);
  }

  /** {@code GET /v1/agent-scope-bundles}. */
  public static ApiRequest<BundlePage> listBundles(ListParams p) {
    Objects.requireNonNull(p, "params");
    return ApiRequest.of(
            "GET", "/v1/agent-scope-bundles", BundlePage.class, V1, "agent-scope-bundles")
        .query(p.toQuery())
        .build();
  }

  /** {@code PUT /v1/agent-scope-bundles/{id}}. */
  public static ApiRequest<Bundle> editBundle(String id, BundleParams p) {
    Objects.requireNonNull(p, "params");
    Validation.id(id, "bundle id");
    if (p.id() != null && !p.id().equals(id)) {
      throw new IllegalArgumentException(
          "expected the bundle's id to be absent or equal to the edited id \""
              + id
              + "\", found \""
              + p.id()
              + "\"");
    }
    return ApiRequest.of(
            "PUT", "/v1/agent-scope-bundles/{id}", Bundle.class, V1, "agent-scope-bundles", id)
        .body(p.body())
        .build();
  }

  /** {@code DELETE /v1/agent-scope-bundles/{id}}. */
  public static ApiRequest<Bundle> deleteBundle(String id) {
    return ApiRequest.of(
            "DELETE",
            "/v1/agent-scope-bundles/{id}",
            Bundle.class,
            V1,
            "agent-scope-bundles",
            Validation.id(id, "bundle id"))
        .build();
  }

  /** {@code POST /v1/confirmations/{nonce}} with {@code approved: true}. */
  public static ApiRequest<ConfirmationResolution> approveConfirmation(String nonce, Duration ttl) {
    return approveConfirmation(nonce, ttl, null);
  }

  /** {@code POST /v1/confirmations/{nonce}} with {@code approved: true} and {@code via}. */
  public static ApiRequest<ConfirmationResolution> approveConfirmation(
      String nonce, Duration ttl, ConfirmationVia via) {
    Long ttlSeconds = null;
    if (ttl != null) {
      if (ttl.compareTo(Duration.ofSeconds(1)) < 0 || ttl.compareTo(MAX_CONFIRMATION_TTL) > 0) {
        throw new IllegalArgumentException(
            "expected a confirmation ttl of 1-300 seconds, found: " + ttl);
      }
      ttlSeconds = ttl.toSeconds();
    }
    return confirmation(nonce, new ConfirmationRequest(true, ttlSeconds, via));
  }

  /** {@code POST /v1/confirmations/{nonce}} with {@code approved: false}. */
  public static ApiRequest<ConfirmationResolution> declineConfirmation(String nonce) {
    return declineConfirmation(nonce, null);
  }

  /** {@code POST /v1/confirmations/{nonce}} with {@code approved: false} and {@code via}. */
  public static ApiRequest<ConfirmationResolution> declineConfirmation(
      String nonce, ConfirmationVia via) {
    return confirmation(nonce, new ConfirmationRequest(false, null, via));
  }

  private static ApiRequest<ConfirmationResolution> confirmation(
      String nonce, ConfirmationRequest body) {
    return ApiRequest.of(
            "POST",
            "/v1/confirmations/{nonce}",
            ConfirmationResolution.class,
            V1,
            "confirmations",
            Validation.id(nonce, "confirmation nonce"))
        .body(body)
        .build();
  }

  /** {@code POST /v1/escalations/{id}/resolve}. */
  public static ApiRequest<EscalationResolveResponse> resolveEscalation(
      String id, EscalationResolveParams p) {
    Objects.requireNonNull(p, "params");
    return ApiRequest.of(
            "POST",
            "/v1/escalations/{id}/resolve",
            EscalationResolveResponse.class,
            V1,
            "escalations",
            Validation.id(id, "escalation id"),
            "resolve")
        .body(p.body())
        .build();
  }

  /** {@code GET /v1/escalations/{id}}. */
  public static ApiRequest<Escalation> getEscalation(String id) {
    return byId("escalations", "escalation id", id, Escalation.class);
  }

  /** {@code GET /v1/escalations}. */
  public static ApiRequest<EscalationPage> listEscalations(EscalationListParams p) {
    Objects.requireNonNull(p, "params");
    return ApiRequest.of("GET", "/v1/escalations", EscalationPage.class, V1, "escalations")
        .query(p.toQuery())
        .build();
  }

  /** {@code GET /v1/receipts/{id}}. */
  public static ApiRequest<ReceiptLookup> getReceipt(String id) {
    return byId("receipts", "receipt id", id, ReceiptLookup.class);
  }

  /**
   * {@code GET /v1/receipts/{id}}, typed, with a signed receipt's text as served ({@link
   * ServedJson#receipt}).
   */
  public static ApiRequest<ServedJson.Receipt> getReceiptServed(String id) {
    return ApiRequest.of(
            "GET",
            "/v1/receipts/{id}",
            ServedJson.Receipt.class,
            V1,
            "receipts",
            Validation.id(id, "receipt id"))
        .reader(ServedJson::receipt, ReceiptLookup.class)
        .build();
  }

  /** {@code GET /v1/<collection>/{id}}, the id validated and path-encoded. */
  private static <T> ApiRequest<T> byId(String collection, String label, String id, Class<T> type) {
    return ApiRequest.of(
            "GET", "/v1/" + collection + "/{id}", type, V1, collection, Validation.id(id, label))
        .build();
  }

  /** {@code GET /v1/receipts}. */
  public static ApiRequest<ReceiptPage> listReceipts(ReceiptListParams p) {
    Objects.requireNonNull(p, "params");
    return ApiRequest.of("GET", "/v1/receipts", ReceiptPage.class, V1, "receipts")
        .query(p.toQuery())
        .build();
  }

  /** {@code POST /v1/tombstones}. */
  public static ApiRequest<Tombstone> createTombstone(String resource, String reason) {
    Validation.text(resource, "resource");
    return ApiRequest.of("POST", "/v1/tombstones", Tombstone.class, V1, "tombstones")
        .body(new TombstoneRequest(resource, reason))
        .build();
  }

  /** {@code POST /v1/tombstones} with a {@code resource_pattern}. */
  public static ApiRequest<Tombstone> createTombstonePattern(
      String resourcePattern, String reason) {
    Validation.text(resourcePattern, "resourcePattern");
    return ApiRequest.of("POST", "/v1/tombstones", Tombstone.class, V1, "tombstones")
        .body(TombstoneRequest.pattern(resourcePattern, reason))
        .build();
  }

  /** {@code GET /v1/tombstones}. */
  public static ApiRequest<TombstonePage> listTombstones(ListParams p) {
    Objects.requireNonNull(p, "params");
    return ApiRequest.of("GET", "/v1/tombstones", TombstonePage.class, V1, "tombstones")
        .query(p.toQuery())
        .build();
  }

  /** {@code POST /v1/api-keys}: no Idempotency-Key, never retried (the answer holds a secret). */
  public static ApiRequest<ApiKey> createApiKey(ApiKeyCreateParams p) {
    Objects.requireNonNull(p, "params");
    return ApiRequest.of("POST", "/v1/api-keys", ApiKey.class, V1, "api-keys")
        .body(p.body())
        .unrepeatable()
        .build();
  }

  /** {@code GET /v1/api-keys}. */
  public static ApiRequest<ApiKeyPage> listApiKeys(ListParams p) {
    Objects.requireNonNull(p, "params");
    return ApiRequest.of("GET", "/v1/api-keys", ApiKeyPage.class, V1, "api-keys")
        .query(p.toQuery())
        .build();
  }

  /** {@code GET /v1/api-keys/current}. */
  public static ApiRequest<ApiKey> currentApiKey() {
    return ApiRequest.of("GET", "/v1/api-keys/current", ApiKey.class, V1, "api-keys", "current")
        .build();
  }

  /** {@code DELETE /v1/api-keys/{key_id}}. */
  public static ApiRequest<ApiKey> revokeApiKey(String keyId) {
    return ApiRequest.of(
            "DELETE",
            "/v1/api-keys/{key_id}",
            ApiKey.class,
            V1,
            "api-keys",
            Validation.id(keyId, "key id"))
        .build();
  }

  /** {@code POST /v1/webhooks}: never retried (the answer holds the secret). */
  public static ApiRequest<Webhook> createWebhook(WebhookCreateParams p) {
    Objects.requireNonNull(p, "params");
    return ApiRequest.of("POST", "/v1/webhooks", Webhook.class, V1, "webhooks")
        .body(p.body())
        .unrepeatable()
        .build();
  }

  /** {@code GET /v1/webhooks}. */
  public static ApiRequest<WebhookPage> listWebhooks() {
    return ApiRequest.of("GET", "/v1/webhooks", WebhookPage.class, V1, "webhooks").build();
  }

  /** {@code DELETE /v1/webhooks/{id}}. */
  public static ApiRequest<Webhook> deleteWebhook(String id) {
    return ApiRequest.of(
            "DELETE", "/v1/webhooks/{id}", Webhook.class, V1, "webhooks", Validation.id(id, "id"))
        .build();
  }

  /** {@code GET /v1/webhooks/{id}/deliveries}. */
  public static ApiRequest<WebhookDeliveryPage> listWebhookDeliveries(String id, ListParams p) {
    Objects.requireNonNull(p, "params");
    return ApiRequest.of(
            "GET",
            "/v1/webhooks/{id}/deliveries",
            WebhookDeliveryPage.class,
            V1,
            "webhooks",
            Validation.id(id, "id"),
            "deliveries")
        .query(p.toQuery())
        .build();
  }

  /** {@code GET /v1/workspaces/{id}/keys}: public, sent without the API key. */
  public static ApiRequest<WorkspaceKeys> workspaceKeys(String workspaceId) {
    return ApiRequest.of(
            "GET",
            "/v1/workspaces/{id}/keys",
            WorkspaceKeys.class,
            V1,
            "workspaces",
            Validation.id(workspaceId, "workspace id"),
            "keys")
        .unauthenticated()
        .build();
  }

  /**
   * {@code GET /v1/workspaces/{id}/keys}: the body's text as served, once it has read as {@link
   * WorkspaceKeys}; public, sent without the API key.
   */
  public static ApiRequest<String> workspaceKeysJson(String workspaceId) {
    return ApiRequest.of(
            "GET",
            "/v1/workspaces/{id}/keys",
            String.class,
            V1,
            "workspaces",
            Validation.id(workspaceId, "workspace id"),
            "keys")
        .reader(ServedJson::keys, WorkspaceKeys.class)
        .unauthenticated()
        .build();
  }
}
