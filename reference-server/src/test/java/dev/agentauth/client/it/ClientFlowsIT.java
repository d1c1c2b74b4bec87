package dev.agentauth.client.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.client.ApiResponse;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.client.AuthorizationListParams;
import dev.agentauth.client.AuthorizationRevokeParams;
import dev.agentauth.client.BadRequestException;
import dev.agentauth.client.BundleParams;
import dev.agentauth.client.CheckParams;
import dev.agentauth.client.ConflictException;
import dev.agentauth.client.EscalationListParams;
import dev.agentauth.client.EscalationResolveParams;
import dev.agentauth.client.GoneException;
import dev.agentauth.client.ListParams;
import dev.agentauth.client.RequestOptions;
import dev.agentauth.model.Authorization;
import dev.agentauth.model.AuthorizationStatus;
import dev.agentauth.model.BudgetBlock;
import dev.agentauth.model.Bundle;
import dev.agentauth.model.BundleStatus;
import dev.agentauth.model.CheckResponse;
import dev.agentauth.model.CheckResult;
import dev.agentauth.model.ConfirmationDecision;
import dev.agentauth.model.ConfirmationResolution;
import dev.agentauth.model.Decision;
import dev.agentauth.model.Escalation;
import dev.agentauth.model.EscalationResolveResponse;
import dev.agentauth.model.EscalationStatus;
import dev.agentauth.model.PendingReceipt;
import dev.agentauth.model.Reason;
import dev.agentauth.model.ReceiptEvent;
import dev.agentauth.model.ReceiptLookup;
import dev.agentauth.model.RevokeAuthorizationResponse;
import dev.agentauth.model.ScopeConstraints;
import dev.agentauth.model.ScopeEntry;
import dev.agentauth.model.SignedReceipt;
import dev.agentauth.model.Tombstone;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client's main flows against the embedded reference server, through the typed API only:
 * authorizations (inline and from a bundle), every decision of {@code /v1/check}, confirmation and
 * escalation round trips, budgets, revocation and tombstones. Every receipt is verified offline and
 * every authorization's chain with the chain verifier.
 */
class ClientFlowsIT {
  private static final String POLICY_VERSION = "\\d{4}-\\d{2}-\\d{2}\\.\\d+(\\.\\d+)*";

  private ItServer it;

  @BeforeEach
  void start() {
    it = ItServer.start();
  }

  @AfterEach
  void stop() {
    it.close();
  }

  private static CheckResult only(CheckResponse r, String scope) {
    assertThat(r.results()).containsOnlyKeys(scope);
    return r.results().get(scope);
  }

  private static void assertOutcome(CheckResult r, Decision decision, Reason reason) {
    assertThat(r.decision().value() + "/" + r.reason().value())
        .isEqualTo(decision.value() + "/" + reason.value());
    assertThat(r.fallback()).isNull();
  }

  private CheckResult checkOne(CheckParams params) {
    return only(it.client.check(params), params.scopes().get(0));
  }

  private CheckResult checkOne(String authorizationId, String scope) {
    return checkOne(CheckParams.of(authorizationId, scope));
  }

  private static JsonNode context(SignedReceipt r) {
    return ItServer.MAPPER.valueToTree(r.context());
  }

  // ---- authorizations

  @Test
  void inlineAuthorizationIsCreatedReadListedAndRevoked() {
    Instant now = it.clock.instant();
    Instant expires = now.plus(Duration.ofDays(30));
    String user = ItServer.uniqueId("user");
    ScopeEntry crm = new ScopeEntry("crm.read", new ScopeConstraints(100L, "crm:*", null));

    ApiResponse<Authorization> created =
        it.client
            .authorizations()
            .createWithResponse(
                AuthorizationCreateParams.inline()
                    .userId(user)
                    .agentId("support-bot")
                    .scope("email.send")
                    .scope(crm)
                    .requiresConfirmFor("email.send")
                    .expiresAt(expires)
                    .putMetadata("ticket", "T-1")
                    .build(),
                RequestOptions.none());

    assertThat(created.statusCode()).isEqualTo(201);
    assertThat(created.requestId()).isNotBlank();
    assertThat(created.idempotentReplayed()).isFalse();
    Authorization a = created.value();
    String id = a.authorizationId();
    assertThat(id).isNotBlank();
    assertThat(a.userId()).isEqualTo(user);
    assertThat(a.agentId()).isEqualTo("support-bot");
    assertThat(a.bundleId()).isNull();
    assertThat(a.scopes()).containsExactly(ScopeEntry.of("email.send"), crm);
    assertThat(a.requiresConfirmFor()).containsExactly("email.send");
    assertThat(a.requiresEscalationFor()).isEmpty();
    assertThat(a.escalationTargets()).isEmpty();
    assertThat(a.expiresAt()).isEqualTo(expires);
    assertThat(a.budgetLimitMicros()).isNull();
    assertThat(a.budgetSpentMicros()).isZero();
    assertThat(a.createdAt()).isEqualTo(now);
    assertThat(a.revokedAt()).isNull();
    assertThat(a.metadata()).isEqualTo(Map.of("ticket", "T-1"));
    assertThat(a.receipt()).isInstanceOf(PendingReceipt.class);
    PendingReceipt pending = (PendingReceipt) a.receipt();
    assertThat(pending.url())
        .isEqualTo(it.server.baseUrl() + "/v1/receipts/" + pending.receiptId());

    SignedReceipt createReceipt = it.signed(a.receipt());
    assertThat(createReceipt.event()).isEqualTo(ReceiptEvent.AUTHORIZATION_CREATE);
    assertThat(createReceipt.scope()).isNull();
    assertThat(createReceipt.decision()).isEqualTo(Decision.AUTHORIZATION_GRANTED);
    assertThat(createReceipt.reason()).isEqualTo(Reason.AUTHORIZATION_CREATED);
    assertThat(createReceipt.authorizationId()).isEqualTo(id);
    assertThat(createReceipt.userId()).isEqualTo(user);
    assertThat(createReceipt.agentId()).isEqualTo("support-bot");
    assertThat(createReceipt.workspaceId()).isEqualTo(it.workspaceId());
    assertThat(createReceipt.resource()).isNull();
    assertThat(createReceipt.issuedAt()).isEqualTo(now);
    assertThat(context(createReceipt).path("metadata").path("ticket").asText()).isEqualTo("T-1");

    Authorization read = it.client.authorizations().get(id);
    assertThat(read.status()).isEqualTo(AuthorizationStatus.ACTIVE);
    assertThat(read.receipt()).isNull();
    assertThat(read).usingRecursiveComparison().ignoringFields("status", "receipt").isEqualTo(a);

    assertThat(
            it.client
                .authorizations()
                .list(AuthorizationListParams.builder().userId(user).build())
                .authorizations())
        .extracting(Authorization::authorizationId)
        .containsExactly(id);
    assertThat(
            it
                .client
                .authorizations()
                .listAutoPaging(
                    AuthorizationListParams.builder()
                        .status(AuthorizationStatus.ACTIVE)
                        .limit(1)
                        .build())
                .stream()
                .map(Authorization::authorizationId))
        .contains(id);

    it.clock.advance(Duration.ofMinutes(3));
    RevokeAuthorizationResponse revoked =
        it.client
            .authorizations()
            .revoke(
                id,
                AuthorizationRevokeParams.builder()
                    .revokedBy("admin_17")
                    .notes("user left")
                    .build());
    assertThat(revoked.authorizationId()).isEqualTo(id);
    assertThat(revoked.revokedAt()).isEqualTo(it.clock.instant());
    SignedReceipt revokeReceipt = it.signed(revoked.receipt());
    assertThat(revokeReceipt.event()).isEqualTo(ReceiptEvent.AUTHORIZATION_REVOKE);
    assertThat(revokeReceipt.decision()).isEqualTo(Decision.AUTHORIZATION_REVOKED);
    assertThat(revokeReceipt.reason()).isEqualTo(Reason.AUTHORIZATION_REVOKED);
    assertThat(context(revokeReceipt).path("revoked_by").asText()).isEqualTo("admin_17");
    assertThat(context(revokeReceipt).path("notes").asText()).isEqualTo("user left");

    Authorization after = it.client.authorizations().get(id);
    assertThat(after.status()).isEqualTo(AuthorizationStatus.REVOKED);
    assertThat(after.revokedAt()).isEqualTo(revoked.revokedAt());
    assertThat(
            it.client
                .authorizations()
                .list(
                    AuthorizationListParams.builder()
                        .userId(user)
                        .status(AuthorizationStatus.ACTIVE)
                        .build())
                .authorizations())
        .isEmpty();
    assertThat(
            it.client
                .authorizations()
                .list(
                    AuthorizationListParams.builder()
                        .userId(user)
                        .status(AuthorizationStatus.REVOKED)
                        .build())
                .authorizations())
        .extracting(Authorization::authorizationId)
        .containsExactly(id);

    List<SignedReceipt> chain = it.verifyChain(id);
    assertThat(chain)
        .extracting(SignedReceipt::receiptId)
        .containsExactly(createReceipt.receiptId(), revokeReceipt.receiptId());
  }

  @Test
  void bundleAuthorizationTakesAgentScopesAndExpiryFromTheBundle() {
    String bundleId = ItServer.uniqueId("bundle");
    BundleParams params =
        BundleParams.builder()
            .id(bundleId)
            .agentId("support-bot")
            .scope("email.send")
            .scope("crm.read")
            .requiresConfirmFor("email.send")
            .defaultExpiryDays(30)
            .description("What the support bot may do for a customer")
            .build();
    Bundle bundle = it.client.bundles().create(params);
    assertThat(bundle.id()).isEqualTo(bundleId);
    assertThat(bundle.status()).isEqualTo(BundleStatus.ACTIVE);
    assertThat(bundle.agentId()).isEqualTo("support-bot");
    assertThat(bundle.defaultExpiryDays()).isEqualTo(30L);
    assertThat(it.client.bundles().get(bundleId)).isEqualTo(bundle);
    assertThat(it.client.bundles().list().bundles()).extracting(Bundle::id).contains(bundleId);
    assertThatThrownBy(() -> it.client.bundles().create(params))
        .isInstanceOfSatisfying(
            ConflictException.class, e -> assertThat(e.code()).isEqualTo("bundle_exists"));

    String user = ItServer.uniqueId("user");
    Authorization a =
        it.client
            .authorizations()
            .create(AuthorizationCreateParams.fromBundle(bundleId).userId(user).build());
    assertThat(a.bundleId()).isEqualTo(bundleId);
    assertThat(a.agentId()).isEqualTo("support-bot");
    assertThat(a.userId()).isEqualTo(user);
    assertThat(a.scopes()).extracting(ScopeEntry::name).containsExactly("email.send", "crm.read");
    assertThat(a.requiresConfirmFor()).containsExactly("email.send");
    assertThat(a.expiresAt()).isEqualTo(a.createdAt().plus(Duration.ofDays(30)));
    SignedReceipt created = it.signed(a.receipt());
    assertThat(context(created).path("bundle_id").asText()).isEqualTo(bundleId);

    String id = a.authorizationId();
    assertOutcome(
        checkOne(id, "crm.read"), Decision.ALLOW, Reason.AUTHORIZATION_GRANTED_SCOPE_ACTIVE);
    assertOutcome(
        checkOne(id, "email.send"), Decision.CONFIRM, Reason.SCOPE_REQUIRES_USER_CONFIRMATION);

    // Editing and deleting the bundle leaves the granted authorization as it was.
    Bundle edited =
        it.client
            .bundles()
            .edit(
                bundleId,
                BundleParams.builder()
                    .agentId("support-bot")
                    .scope("email.send")
                    .defaultExpiryDays(7)
                    .build());
    assertThat(edited.scopes()).extracting(ScopeEntry::name).containsExactly("email.send");
    assertThat(edited.requiresConfirmFor()).isEmpty();
    Bundle deleted = it.client.bundles().delete(bundleId);
    assertThat(deleted.status()).isEqualTo(BundleStatus.DELETED);
    assertThat(deleted.deletedAt()).isNotNull();
    assertThat(it.client.bundles().listAutoPaging(ListParams.none()).stream().map(Bundle::id))
        .doesNotContain(bundleId);

    assertOutcome(
        checkOne(id, "crm.read"), Decision.ALLOW, Reason.AUTHORIZATION_GRANTED_SCOPE_ACTIVE);
    assertOutcome(
        checkOne(id, "email.send"), Decision.CONFIRM, Reason.SCOPE_REQUIRES_USER_CONFIRMATION);
    assertThatThrownBy(
            () ->
                it.client
                    .authorizations()
                    .create(AuthorizationCreateParams.fromBundle(bundleId).userId(user).build()))
        .isInstanceOfSatisfying(
            BadRequestException.class, e -> assertThat(e.code()).isEqualTo("bundle_not_found"));

    assertThat(it.verifyChain(id)).hasSize(5);
  }

  // ---- checks

  @Test
  void allowCarriesAVerifiableScopeReceiptRecordingResourceSessionAndContext() {
    Authorization a = it.authorize("email.send");
    Instant decidedAt = it.clock.advance(Duration.ofSeconds(5));

    ApiResponse<CheckResponse> resp =
        it.client.checkWithResponse(
            CheckParams.builder()
                .authorizationId(a.authorizationId())
                .scope("email.send")
                .resource("mailbox:42")
                .sessionId("sess_1")
                .initiatedBy("user")
                .putContext("ticket", "T-9")
                .build(),
            RequestOptions.none());

    assertThat(resp.statusCode()).isEqualTo(200);
    assertThat(resp.requestId()).isNotBlank();
    assertThat(resp.fallbackCause()).isNull();
    CheckResponse r = resp.value();
    assertThat(r.authorizationId()).isEqualTo(a.authorizationId());
    assertThat(r.userId()).isEqualTo(a.userId());
    assertThat(r.agentId()).isEqualTo(a.agentId());
    assertThat(r.authorizationExpiresAt()).isEqualTo(a.expiresAt());
    assertThat(r.policyVersion()).matches(POLICY_VERSION);
    CheckResult email = only(r, "email.send");
    assertOutcome(email, Decision.ALLOW, Reason.AUTHORIZATION_GRANTED_SCOPE_ACTIVE);
    assertThat(email.isAllowed()).isTrue();
    assertThat(email.budget()).isNull();
    assertThat(email.confirmNonce()).isNull();
    assertThat(email.escalationId()).isNull();
    assertThat(email.receipt()).isInstanceOf(PendingReceipt.class);

    SignedReceipt receipt = it.signed(email.receipt());
    assertThat(receipt.scope()).isEqualTo("email.send");
    assertThat(receipt.event()).isNull();
    assertThat(receipt.decision()).isEqualTo(Decision.ALLOW);
    assertThat(receipt.reason()).isEqualTo(Reason.AUTHORIZATION_GRANTED_SCOPE_ACTIVE);
    assertThat(receipt.resource()).isEqualTo("mailbox:42");
    assertThat(receipt.authorizationId()).isEqualTo(a.authorizationId());
    assertThat(receipt.userId()).isEqualTo(a.userId());
    assertThat(receipt.policyVersion()).isEqualTo(r.policyVersion());
    assertThat(receipt.issuedAt()).isEqualTo(decidedAt);
    assertThat(receipt.version()).isEqualTo(SignedReceipt.VERSION);
    assertThat(receipt.signature().alg()).isEqualTo("Ed25519");
    JsonNode ctx = context(receipt);
    assertThat(ctx.path("session_id").asText()).isEqualTo("sess_1");
    assertThat(ctx.path("client_context").path("initiated_by").asText()).isEqualTo("user");
    assertThat(ctx.path("client_context").path("ticket").asText()).isEqualTo("T-9");

    ReceiptLookup lookup = it.client.receipts().get(receipt.receiptId());
    assertThat(lookup).isInstanceOf(ReceiptLookup.Signed.class);
    assertThat(((ReceiptLookup.Signed) lookup).receipt()).isEqualTo(receipt);

    assertThat(it.verifyChain(a.authorizationId())).hasSize(2);
  }

  @Test
  void denyCarriesTheReasonOfTheFirstFailingStep() {
    Authorization a =
        it.client
            .authorizations()
            .create(
                it.inline()
                    .scope(new ScopeEntry("crm.read", new ScopeConstraints(null, "crm:*", null)))
                    .scope(
                        new ScopeEntry(
                            "email.send", new ScopeConstraints(null, null, List.of("user"))))
                    .scope(new ScopeEntry("files.read", new ScopeConstraints(1L, null, null)))
                    .build());
    String id = a.authorizationId();
    it.client.tombstones().create("crm:closed", "account closed");

    // step 4: scope not included
    assertOutcome(checkOne(id, "pay.send"), Decision.DENY, Reason.SCOPE_NOT_AUTHORIZED);
    // step 5: resource_pattern and allowed_initiators
    assertOutcome(
        checkOne(
            CheckParams.builder().authorizationId(id).scope("crm.read").resource("mail:1").build()),
        Decision.DENY,
        Reason.SCOPE_NOT_AUTHORIZED);
    assertOutcome(
        checkOne(CheckParams.builder().authorizationId(id).scope("crm.read").build()),
        Decision.DENY,
        Reason.SCOPE_NOT_AUTHORIZED);
    assertOutcome(
        checkOne(
            CheckParams.builder()
                .authorizationId(id)
                .scope("email.send")
                .initiatedBy("agent")
                .build()),
        Decision.DENY,
        Reason.SCOPE_NOT_AUTHORIZED);
    assertOutcome(checkOne(id, "email.send"), Decision.DENY, Reason.SCOPE_NOT_AUTHORIZED);
    assertOutcome(
        checkOne(
            CheckParams.builder()
                .authorizationId(id)
                .scope("email.send")
                .initiatedBy("user")
                .build()),
        Decision.ALLOW,
        Reason.AUTHORIZATION_GRANTED_SCOPE_ACTIVE);
    // step 6: tombstone (after the pattern matched)
    assertOutcome(
        checkOne(
            CheckParams.builder()
                .authorizationId(id)
                .scope("crm.read")
                .resource("crm:closed")
                .build()),
        Decision.DENY,
        Reason.RESOURCE_TOMBSTONED);
    // step 7: max_per_day; the denial does not consume the counter
    assertOutcome(
        checkOne(id, "files.read"), Decision.ALLOW, Reason.AUTHORIZATION_GRANTED_SCOPE_ACTIVE);
    assertOutcome(checkOne(id, "files.read"), Decision.DENY, Reason.RATE_LIMIT_EXCEEDED);
    assertOutcome(checkOne(id, "files.read"), Decision.DENY, Reason.RATE_LIMIT_EXCEEDED);

    // several scopes in one call: one result (and one receipt) per scope, in request order
    CheckResponse multi =
        it.client.check(
            CheckParams.builder()
                .authorizationId(id)
                .scopes("crm.read", "pay.send", "files.read")
                .resource("crm:7")
                .build());
    assertThat(multi.results()).containsOnlyKeys("crm.read", "pay.send", "files.read");
    assertThat(multi.results().keySet()).containsExactly("crm.read", "pay.send", "files.read");
    assertOutcome(
        multi.results().get("crm.read"), Decision.ALLOW, Reason.AUTHORIZATION_GRANTED_SCOPE_ACTIVE);
    assertOutcome(multi.results().get("pay.send"), Decision.DENY, Reason.SCOPE_NOT_AUTHORIZED);
    assertOutcome(multi.results().get("files.read"), Decision.DENY, Reason.RATE_LIMIT_EXCEEDED);
    assertThat(multi.results().values())
        .extracting(res -> res.receipt().receiptId())
        .doesNotHaveDuplicates();
    for (CheckResult res : multi.results().values()) {
      SignedReceipt s = it.signed(res.receipt());
      assertThat(s.decision()).isEqualTo(res.decision());
      assertThat(s.reason()).isEqualTo(res.reason());
      assertThat(s.resource()).isEqualTo("crm:7");
    }

    // 13 scope receipts above + create
    assertThat(it.verifyChain(id)).hasSize(14);
  }

  @Test
  void maxPerDayCountsPerUtcDay() {
    Authorization a =
        it.client
            .authorizations()
            .create(
                it.inline()
                    .scope(new ScopeEntry("files.read", new ScopeConstraints(2L, null, null)))
                    .build());
    String id = a.authorizationId();
    assertOutcome(
        checkOne(id, "files.read"), Decision.ALLOW, Reason.AUTHORIZATION_GRANTED_SCOPE_ACTIVE);
    assertOutcome(
        checkOne(id, "files.read"), Decision.ALLOW, Reason.AUTHORIZATION_GRANTED_SCOPE_ACTIVE);
    assertOutcome(checkOne(id, "files.read"), Decision.DENY, Reason.RATE_LIMIT_EXCEEDED);

    // the clock stands at 10:00 UTC; one millisecond before midnight is still the same day
    it.clock.advance(Duration.ofHours(14).minusMillis(1));
    assertOutcome(checkOne(id, "files.read"), Decision.DENY, Reason.RATE_LIMIT_EXCEEDED);
    it.clock.advance(Duration.ofMillis(1));
    assertOutcome(
        checkOne(id, "files.read"), Decision.ALLOW, Reason.AUTHORIZATION_GRANTED_SCOPE_ACTIVE);
    assertThat(it.verifyChain(id)).hasSize(6);
  }

  @Test
  void unknownAuthorizationIsADenialWithAReceiptNotAnError() {
    ApiResponse<CheckResponse> resp =
        it.client.checkWithResponse(
            CheckParams.of("authz_does_not_exist", "email.send"), RequestOptions.none());
    assertThat(resp.statusCode()).isEqualTo(200);
    CheckResponse r = resp.value();
    assertThat(r.authorizationId()).isEqualTo("authz_does_not_exist");
    assertThat(r.userId()).isNull();
    assertThat(r.agentId()).isNull();
    assertThat(r.authorizationExpiresAt()).isNull();
    CheckResult res = only(r, "email.send");
    assertOutcome(res, Decision.DENY, Reason.AUTHORIZATION_NOT_FOUND);

    SignedReceipt receipt = it.signed(res.receipt());
    assertThat(receipt.authorizationId()).isEqualTo("authz_does_not_exist");
    assertThat(receipt.userId()).isNull();
    assertThat(receipt.agentId()).isNull();
    assertThat(receipt.decision()).isEqualTo(Decision.DENY);
  }

  @Test
  void expiredAuthorizationIsDeniedAfterTheClockPassesExpiresAt() {
    Authorization a =
        it.client
            .authorizations()
            .create(
                it.inline("email.send").expiresAt(it.clock.instant().plusSeconds(3600)).build());
    assertOutcome(
        checkOne(a.authorizationId(), "email.send"),
        Decision.ALLOW,
        Reason.AUTHORIZATION_GRANTED_SCOPE_ACTIVE);

    it.clock.advance(Duration.ofHours(2));

    assertOutcome(
        checkOne(a.authorizationId(), "email.send"), Decision.DENY, Reason.AUTHORIZATION_EXPIRED);
    assertThat(it.client.authorizations().get(a.authorizationId()).status())
        .isEqualTo(AuthorizationStatus.EXPIRED);
    assertThat(it.verifyChain(a.authorizationId()))
        .extracting(SignedReceipt::reason)
        .containsExactly(
            Reason.AUTHORIZATION_CREATED,
            Reason.AUTHORIZATION_GRANTED_SCOPE_ACTIVE,
            Reason.AUTHORIZATION_EXPIRED);
  }

  @Test
  void revokedAuthorizationIsDeniedAuthorizationRevoked() {
    Authorization a = it.authorize("email.send");
    String id = a.authorizationId();
    assertOutcome(
        checkOne(id, "email.send"), Decision.ALLOW, Reason.AUTHORIZATION_GRANTED_SCOPE_ACTIVE);

    it.clock.advance(Duration.ofSeconds(1));
    it.client.authorizations().revoke(id);
    it.clock.advance(Duration.ofSeconds(1));

    CheckResult denied = checkOne(id, "email.send");
    assertOutcome(denied, Decision.DENY, Reason.AUTHORIZATION_REVOKED);
    assertThat(it.signed(denied.receipt()).reason()).isEqualTo(Reason.AUTHORIZATION_REVOKED);
    List<SignedReceipt> chain = it.verifyChain(id);
    assertThat(chain)
        .extracting(r -> r.decision().value())
        .containsExactly("authorization_granted", "allow", "authorization_revoked", "deny");
    assertThat(context(chain.get(2)).path("revoked_by").asText()).isEqualTo("api_key");
  }

  // ---- confirmations

  @Test
  void confirmThenApproveAllowsWithinTheWindowAndDeclineConsumesTheNonce() {
    Authorization a =
        it.client
            .authorizations()
            .create(it.inline("email.send").requiresConfirmFor("email.send").build());
    String id = a.authorizationId();
    CheckParams params =
        CheckParams.builder()
            .authorizationId(id)
            .scope("email.send")
            .resource("mailbox:42")
            .build();

    CheckResult confirm = checkOne(params);
    assertOutcome(confirm, Decision.CONFIRM, Reason.SCOPE_REQUIRES_USER_CONFIRMATION);
    assertThat(confirm.isAllowed()).isFalse();
    assertThat(confirm.confirmNonce()).isNotBlank();
    assertThat(confirm.confirmExpiresAt())
        .isEqualTo(it.clock.instant().plus(Duration.ofMinutes(5)));
    assertThat(confirm.confirmPromptHint()).isNotBlank();
    assertThat(it.signed(confirm.receipt()).decision()).isEqualTo(Decision.CONFIRM);
    // asking again while the nonce is open returns the same nonce
    assertThat(checkOne(params).confirmNonce()).isEqualTo(confirm.confirmNonce());

    ConfirmationResolution approved =
        it.client.confirmations().approve(confirm.confirmNonce(), Duration.ofSeconds(120));
    assertThat(approved.decision()).isEqualTo(ConfirmationDecision.APPROVED);
    assertThat(approved.authorizationId()).isNotBlank().isNotEqualTo(id);
    assertThat(approved.expiresAt()).isEqualTo(it.clock.instant().plusSeconds(120));

    CheckResult allowed = checkOne(params);
    assertOutcome(allowed, Decision.ALLOW, Reason.AUTHORIZATION_GRANTED_VIA_CONFIRMATION);
    assertThat(context(it.signed(allowed.receipt())).path("confirmation_authorization_id").asText())
        .isEqualTo(approved.authorizationId());
    // the approval is for that resource only
    assertOutcome(
        checkOne(
            CheckParams.builder()
                .authorizationId(id)
                .scope("email.send")
                .resource("mailbox:43")
                .build()),
        Decision.CONFIRM,
        Reason.SCOPE_REQUIRES_USER_CONFIRMATION);
    // a used nonce is gone
    assertThatThrownBy(() -> it.client.confirmations().approve(confirm.confirmNonce()))
        .isInstanceOfSatisfying(
            GoneException.class,
            e -> {
              assertThat(e.statusCode()).isEqualTo(410);
              assertThat(e.code()).isEqualTo("nonce_gone");
            });

    // after the window, confirm again with a fresh nonce; declining consumes it
    it.clock.advance(Duration.ofSeconds(121));
    CheckResult again = checkOne(params);
    assertOutcome(again, Decision.CONFIRM, Reason.SCOPE_REQUIRES_USER_CONFIRMATION);
    assertThat(again.confirmNonce()).isNotEqualTo(confirm.confirmNonce());
    ConfirmationResolution declined = it.client.confirmations().decline(again.confirmNonce());
    assertThat(declined.decision()).isEqualTo(ConfirmationDecision.DENIED_BY_USER);
    assertThat(declined.authorizationId()).isNull();
    assertThatThrownBy(() -> it.client.confirmations().approve(again.confirmNonce()))
        .isInstanceOf(GoneException.class);
    CheckResult fresh = checkOne(params);
    assertOutcome(fresh, Decision.CONFIRM, Reason.SCOPE_REQUIRES_USER_CONFIRMATION);
    assertThat(fresh.confirmNonce()).isNotIn(confirm.confirmNonce(), again.confirmNonce());

    assertThat(it.verifyChain(id)).hasSize(7);
  }

  // ---- escalations

  @Test
  void escalateThenResolveApprovedAllowsExactlyOnce() {
    Authorization a =
        it.client
            .authorizations()
            .create(
                it.inline("pay.send")
                    .requiresEscalationFor("pay.send")
                    .escalationTarget("pay.send", "manager")
                    .build());
    String id = a.authorizationId();
    CheckParams params =
        CheckParams.builder().authorizationId(id).scope("pay.send").resource("invoice:7").build();

    CheckResult escalate = checkOne(params);
    assertOutcome(escalate, Decision.ESCALATE, Reason.ESCALATION_REQUIRED);
    String escalationId = escalate.escalationId();
    assertThat(escalationId).isNotBlank();
    assertThat(escalate.escalationTo()).isEqualTo("manager");
    assertThat(escalate.escalationExpiresAt())
        .isEqualTo(it.clock.instant().plus(Duration.ofHours(24)));
    assertThat(escalate.escalation().escalationId()).isEqualTo(escalationId);
    assertThat(escalate.escalation().status()).isEqualTo(EscalationStatus.PENDING);
    assertThat(escalate.escalation().escalationTo()).isEqualTo("manager");
    assertThat(it.signed(escalate.receipt()).decision()).isEqualTo(Decision.ESCALATE);
    assertThat(checkOne(params).escalationId()).isEqualTo(escalationId);

    Escalation pending = it.client.escalations().get(escalationId);
    assertThat(pending.status()).isEqualTo(EscalationStatus.PENDING);
    assertThat(pending.authorizationId()).isEqualTo(id);
    assertThat(pending.scope()).isEqualTo("pay.send");
    assertThat(pending.resource()).isEqualTo("invoice:7");
    assertThat(
            it
                .client
                .escalations()
                .listAutoPaging(EscalationListParams.status(EscalationStatus.PENDING))
                .stream()
                .map(Escalation::escalationId))
        .contains(escalationId);

    it.clock.advance(Duration.ofMinutes(10));
    EscalationResolveResponse resolved =
        it.client
            .escalations()
            .resolve(
                escalationId, EscalationResolveParams.approve("approver_7").withNote("SEC-112"));
    assertThat(resolved.status()).isEqualTo(EscalationStatus.APPROVED);
    assertThat(resolved.resolvedBy()).isEqualTo("approver_7");
    assertThat(resolved.resolvedAt()).isEqualTo(it.clock.instant());
    SignedReceipt resolution = it.signed(resolved.receipt());
    assertThat(resolution.event()).isEqualTo(ReceiptEvent.ESCALATION_RESOLVE);
    assertThat(resolution.decision()).isEqualTo(Decision.ESCALATION_APPROVED);
    assertThat(resolution.resource()).isEqualTo("invoice:7");
    JsonNode ctx = context(resolution);
    assertThat(ctx.path("escalation_id").asText()).isEqualTo(escalationId);
    assertThat(ctx.path("scope").asText()).isEqualTo("pay.send");
    assertThat(ctx.path("resolved_by").asText()).isEqualTo("approver_7");
    assertThat(ctx.path("note").asText()).isEqualTo("SEC-112");

    // repeating the same resolution answers normally, without a new receipt
    assertThat(
            it.client
                .escalations()
                .resolve(escalationId, EscalationResolveParams.approve("approver_7"))
                .receipt())
        .isNull();
    assertThatThrownBy(
            () ->
                it.client
                    .escalations()
                    .resolve(escalationId, EscalationResolveParams.reject("approver_8")))
        .isInstanceOfSatisfying(
            ConflictException.class, e -> assertThat(e.code()).isEqualTo("escalation_conflict"));

    CheckResult allowed = checkOne(params);
    assertOutcome(allowed, Decision.ALLOW, Reason.AUTHORIZATION_GRANTED_VIA_ESCALATION);
    assertThat(context(it.signed(allowed.receipt())).path("escalation_id").asText())
        .isEqualTo(escalationId);
    assertThat(it.client.escalations().get(escalationId).approvalConsumedAt()).isNotNull();

    // once: the next check opens a new escalation, and the consumed one cannot be resolved again
    CheckResult next = checkOne(params);
    assertOutcome(next, Decision.ESCALATE, Reason.ESCALATION_REQUIRED);
    assertThat(next.escalationId()).isNotEqualTo(escalationId);
    assertThatThrownBy(
            () ->
                it.client
                    .escalations()
                    .resolve(escalationId, EscalationResolveParams.approve("approver_7")))
        .isInstanceOfSatisfying(
            ConflictException.class, e -> assertThat(e.code()).isEqualTo("escalation_conflict"));

    // a rejection denies re-checks
    EscalationResolveResponse rejected =
        it.client
            .escalations()
            .resolve(next.escalationId(), EscalationResolveParams.reject("approver_7"));
    assertThat(rejected.status()).isEqualTo(EscalationStatus.REJECTED);
    assertThat(it.signed(rejected.receipt()).decision()).isEqualTo(Decision.ESCALATION_REJECTED);
    assertOutcome(checkOne(params), Decision.DENY, Reason.ESCALATION_REJECTED);

    assertThat(it.verifyChain(id))
        .extracting(r -> r.decision().value())
        .containsExactly(
            "authorization_granted",
            "escalate",
            "escalate",
            "escalation_approved",
            "allow",
            "escalate",
            "escalation_rejected",
            "deny");
  }

  // ---- budget

  @Test
  void budgetNeedsAnEstimateAndDeniesBudgetExceededOverTheLimit() {
    Authorization a =
        it.client.authorizations().create(it.inline("llm.call").budgetLimitMicros(1_000).build());
    String id = a.authorizationId();
    assertThat(a.budgetLimitMicros()).isEqualTo(1_000L);
    assertThat(a.budgetSpentMicros()).isZero();

    assertThatThrownBy(() -> it.client.check(CheckParams.of(id, "llm.call")))
        .isInstanceOfSatisfying(
            BadRequestException.class,
            e -> {
              assertThat(e.code()).isEqualTo("invalid_request");
              assertThat(e.requestId()).isNotBlank();
            });
    assertThatThrownBy(
            () ->
                CheckParams.builder()
                    .authorizationId(id)
                    .scopes("llm.call", "other")
                    .estimatedCostMicros(1)
                    .build())
        .isInstanceOf(IllegalArgumentException.class);

    CheckResult first = checkOne(budgeted(id, 600));
    assertOutcome(first, Decision.ALLOW, Reason.AUTHORIZATION_GRANTED_SCOPE_ACTIVE);
    assertThat(first.budget()).isEqualTo(new BudgetBlock(1_000, 0, 600, 600));

    CheckResult over = checkOne(budgeted(id, 600));
    assertOutcome(over, Decision.DENY, Reason.BUDGET_EXCEEDED);
    assertThat(over.budget()).isEqualTo(new BudgetBlock(1_000, 600, 600, 600));

    CheckResult last = checkOne(budgeted(id, 400));
    assertOutcome(last, Decision.ALLOW, Reason.AUTHORIZATION_GRANTED_SCOPE_ACTIVE);
    assertThat(last.budget()).isEqualTo(new BudgetBlock(1_000, 600, 400, 1_000));

    assertThat(it.client.authorizations().get(id).budgetSpentMicros()).isEqualTo(1_000L);

    JsonNode recorded = context(it.signed(over.receipt())).path("budget");
    assertThat(recorded.path("limit_micros").asLong()).isEqualTo(1_000);
    assertThat(recorded.path("spent_micros").asLong()).isEqualTo(600);
    assertThat(recorded.path("estimated_cost_micros").asLong()).isEqualTo(600);
    assertThat(recorded.path("spent_after_micros").asLong()).isEqualTo(600);
    assertThat(it.verifyChain(id)).hasSize(4);
  }

  private static CheckParams budgeted(String id, long micros) {
    return CheckParams.builder()
        .authorizationId(id)
        .scope("llm.call")
        .estimatedCostMicros(micros)
        .build();
  }

  // ---- tombstones

  @Test
  void tombstonesBlockAResourceForEveryAuthorizationOfTheWorkspace() {
    ApiResponse<Tombstone> created =
        it.client
            .tombstones()
            .createWithResponse("mailbox:42", "account closed", RequestOptions.none());
    assertThat(created.statusCode()).isEqualTo(201);
    Tombstone t = created.value();
    assertThat(t.resource()).isEqualTo("mailbox:42");
    assertThat(t.reason()).isEqualTo("account closed");
    assertThat(t.createdAt()).isEqualTo(it.clock.instant());
    ApiResponse<Tombstone> again =
        it.client
            .tombstones()
            .createWithResponse("mailbox:42", "account closed", RequestOptions.none());
    assertThat(again.statusCode()).isEqualTo(200);
    assertThat(again.value()).isEqualTo(t);
    it.client.tombstones().create("mailbox:99");
    assertThat(it.client.tombstones().listAutoPaging(ListParams.none().withLimit(1)).stream())
        .extracting(Tombstone::resource)
        .containsExactly("mailbox:42", "mailbox:99");

    for (Authorization a : List.of(it.authorize("email.send"), it.authorize("email.send"))) {
      CheckResult blocked =
          checkOne(
              CheckParams.builder()
                  .authorizationId(a.authorizationId())
                  .scope("email.send")
                  .resource("mailbox:42")
                  .build());
      assertOutcome(blocked, Decision.DENY, Reason.RESOURCE_TOMBSTONED);
      assertThat(it.signed(blocked.receipt()).resource()).isEqualTo("mailbox:42");
      // exact match only
      assertOutcome(
          checkOne(
              CheckParams.builder()
                  .authorizationId(a.authorizationId())
                  .scope("email.send")
                  .resource("mailbox:420")
                  .build()),
          Decision.ALLOW,
          Reason.AUTHORIZATION_GRANTED_SCOPE_ACTIVE);
      assertThat(it.verifyChain(a.authorizationId())).hasSize(3);
    }
  }
}
