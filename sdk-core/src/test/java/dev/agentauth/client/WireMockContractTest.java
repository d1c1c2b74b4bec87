package dev.agentauth.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import dev.agentauth.client.internal.Backoff;
import dev.agentauth.model.Authorization;
import dev.agentauth.model.AuthorizationStatus;
import dev.agentauth.model.Bundle;
import dev.agentauth.model.BundleStatus;
import dev.agentauth.model.CheckResponse;
import dev.agentauth.model.CheckResult;
import dev.agentauth.model.ConfirmationDecision;
import dev.agentauth.model.Decision;
import dev.agentauth.model.EscalationStatus;
import dev.agentauth.model.PendingReceipt;
import dev.agentauth.model.Reason;
import dev.agentauth.model.ReceiptLookup;
import dev.agentauth.model.ReceiptSummary;
import dev.agentauth.model.SignedReceipt;
import dev.agentauth.model.Tombstone;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every endpoint's success and error shapes, served by WireMock from the JSON mapping files in
 * {@code src/test/resources/mappings} (bodies in {@code __files}). The mappings also encode the
 * request contract: the bearer key on every authenticated call and none on the keys endpoint, an
 * {@code Idempotency-Key} on every POST and DELETE, JSON bodies with the required members. A
 * request that breaks it matches no stub, which each test detects.
 */
class WireMockContractTest {
  private static final String KEY = "sk_contract_test";
  private static WireMockServer wireMock;
  private FakeTiming timing;
  private AgentAuthClient client;

  @BeforeAll
  static void startWireMock() {
    wireMock =
        new WireMockServer(
            WireMockConfiguration.options()
                .bindAddress("127.0.0.1")
                .dynamicPort()
                .usingFilesUnderDirectory("src/test/resources"));
    wireMock.start();
  }

  @AfterAll
  static void stopWireMock() {
    wireMock.stop();
  }

  @BeforeEach
  void newClient() {
    wireMock.resetRequests();
    timing = new FakeTiming();
    client =
        AgentAuthClient.builder()
            .baseUrl("http://127.0.0.1:" + wireMock.port())
            .apiKey(KEY)
            .timing(timing)
            .backoff(new Backoff(Duration.ofMillis(200), Duration.ofSeconds(2), () -> 0.5))
            .build();
  }

  @AfterEach
  void everyRequestMatchedAStub() {
    assertThat(wireMock.findAllUnmatchedRequests())
        .as("requests that broke the contract (no stub matched)")
        .isEmpty();
  }

  // Authorizations
  @Test
  void createInlineReturnsTheAuthorizationWithAPendingReceipt() {
    Authorization a =
        client
            .authorizations()
            .create(
                AuthorizationCreateParams.inline()
                    .userId("u_7Hc2")
                    .agentId("support-bot")
                    .scope("email.send")
                    .expiresAt(Instant.parse("2026-12-22T10:00:00Z"))
                    .build());

    assertThat(a.authorizationId()).isEqualTo("auth_01");
    assertThat(a.budgetSpentMicros()).isZero();
    assertThat(a.receipt()).isInstanceOf(PendingReceipt.class);
  }

  @Test
  void createFromBundle() {
    Authorization a =
        client
            .authorizations()
            .create(
                AuthorizationCreateParams.fromBundle("support-bot-default")
                    .userId("u_7Hc2")
                    .build());

    assertThat(a.scopes()).hasSize(2);
  }

  @Test
  void createFromUnknownBundleIsBadRequestBundleNotFound() {
    assertThatThrownBy(
            () ->
                client
                    .authorizations()
                    .create(AuthorizationCreateParams.fromBundle("missing").userId("u").build()))
        .isInstanceOfSatisfying(
            BadRequestException.class, e -> assertThat(e.code()).isEqualTo("bundle_not_found"));
  }

  @Test
  void phoneShapedUserIdIsRejectedByTheServiceWithFieldErrors() {
    assertThatThrownBy(
            () ->
                client
                    .authorizations()
                    .create(
                        AuthorizationCreateParams.fromBundle("support-bot-default")
                            .userId("0151 1234 5678")
                            .build()))
        .isInstanceOfSatisfying(
            BadRequestException.class,
            e -> {
              assertThat(e.code()).isEqualTo("pii_not_allowed");
              assertThat(e.fieldErrors()).singleElement().extracting("field").isEqualTo("user_id");
            });
  }

  @Test
  void budgetOnFreePlanIsPlanRequired() {
    assertThatThrownBy(
            () ->
                client
                    .authorizations()
                    .create(
                        AuthorizationCreateParams.fromBundle("support-bot-default")
                            .userId("u_7Hc2")
                            .budgetLimitMicros(5_000_000)
                            .build()))
        .isInstanceOf(PlanRequiredException.class);
  }

  @Test
  void authorizationGetListAndNotFound() {
    assertThat(client.authorizations().get("auth_01").status())
        .isEqualTo(AuthorizationStatus.ACTIVE);
    assertThat(client.authorizations().list().authorizations()).hasSize(1);
    assertThatThrownBy(() -> client.authorizations().get("auth_missing"))
        .isInstanceOfSatisfying(
            NotFoundException.class,
            e -> assertThat(e.requestId()).isEqualTo("req_wm_problem-not-found"));
  }

  @Test
  void revokeThenRevokeAgainIsConflictAlreadyRevoked() {
    assertThat(client.authorizations().revoke("auth_01").revokedAt()).isNotNull();
    assertThatThrownBy(() -> client.authorizations().revoke("auth_revoked"))
        .isInstanceOfSatisfying(
            ConflictException.class, e -> assertThat(e.code()).isEqualTo("already_revoked"));
    assertThatThrownBy(() -> client.authorizations().revoke("auth_missing"))
        .isInstanceOf(NotFoundException.class);
  }

  // Check
  @Test
  void checkEveryDecisionIsAResult() {
    CheckResponse r =
        client.check(
            CheckParams.of("auth_01", "crm.read", "email.send", "payments.refund", "files.delete"));

    CheckResult crm = r.results().get("crm.read");
    assertThat(crm.isAllowed()).isTrue();
    assertThat(crm.budget().spentAfterMicros()).isEqualTo(1250);
    CheckResult email = r.results().get("email.send");
    assertThat(email.decision()).isEqualTo(Decision.CONFIRM);
    assertThat(email.confirmNonce()).isEqualTo("cn_abc");
    CheckResult refund = r.results().get("payments.refund");
    assertThat(refund.decision()).isEqualTo(Decision.ESCALATE);
    assertThat(refund.escalation().status()).isEqualTo(EscalationStatus.PENDING);
    assertThat(r.results().get("files.delete").reason()).isEqualTo(Reason.SCOPE_NOT_AUTHORIZED);
  }

  @Test
  void unknownAuthorizationIsA200Denial() {
    CheckResponse r = client.check(CheckParams.of("auth_missing", "email.send"));

    assertThat(r.userId()).isNull();
    assertThat(r.results().get("email.send").reason()).isEqualTo(Reason.AUTHORIZATION_NOT_FOUND);
  }

  @Test
  void waitForReceiptReturnsTheSignedReceiptInline() {
    CheckResponse r =
        client.check(
            CheckParams.builder()
                .authorizationId("auth_01")
                .scope("email.send")
                .waitForReceipt(true)
                .build());

    assertThat(r.results().get("email.send").receipt()).isInstanceOf(SignedReceipt.class);
  }

  @Test
  void invalidRequestIsThrownNotFallenBack() {
    assertThatThrownBy(() -> client.check(CheckParams.of("auth_bad_scope", "bad name")))
        .isInstanceOf(BadRequestException.class);
  }

  @Test
  void gateway503FallsBackClosedAsServerError() {
    CheckResponse r = client.check(CheckParams.of("auth_down", "email.send"));

    assertThat(r.policyVersion()).isEqualTo(FallbackPolicy.POLICY_VERSION);
    assertThat(r.results().get("email.send").reason())
        .isEqualTo(Reason.FALLBACK_CLOSED_SERVER_ERROR);
    assertThat(wireMock.getAllServeEvents()).hasSize(3);
  }

  @Test
  void wrongApiKeyIsUnauthenticated() {
    AgentAuthClient wrong = client.newBuilder().apiKey("sk_wrong").build();

    assertThatThrownBy(() -> wrong.check(CheckParams.of("auth_01", "email.send")))
        .isInstanceOfSatisfying(
            AuthenticationException.class,
            e -> {
              assertThat(e.code()).isEqualTo("unauthenticated");
              assertThat(e.getMessage()).doesNotContain("sk_wrong");
            });
  }

  // Confirmations
  @Test
  void confirmationApproveDeclineAndGone() {
    assertThat(client.confirmations().approve("cn_abc").decision())
        .isEqualTo(ConfirmationDecision.APPROVED);
    assertThat(client.confirmations().decline("cn_abc").decision())
        .isEqualTo(ConfirmationDecision.DENIED_BY_USER);
    assertThatThrownBy(() -> client.confirmations().approve("cn_gone", Duration.ofSeconds(60)))
        .isInstanceOfSatisfying(
            GoneException.class, e -> assertThat(e.code()).isEqualTo("nonce_gone"));
  }

  // Escalations
  @Test
  void escalationResolveAndItsErrorShapes() {
    assertThat(
            client
                .escalations()
                .resolve("esc_01", EscalationResolveParams.approve("approver_7"))
                .receipt())
        .isNotNull();
    assertThat(
            client
                .escalations()
                .resolve("esc_repeat", EscalationResolveParams.approve("approver_7"))
                .receipt())
        .isNull();
    assertThatThrownBy(
            () ->
                client
                    .escalations()
                    .resolve("esc_rejected", EscalationResolveParams.approve("approver_7")))
        .isInstanceOfSatisfying(
            ConflictException.class, e -> assertThat(e.code()).isEqualTo("escalation_conflict"));
    assertThatThrownBy(
            () ->
                client
                    .escalations()
                    .resolve("esc_free", EscalationResolveParams.reject("approver_7")))
        .isInstanceOf(PlanRequiredException.class);
    assertThatThrownBy(
            () ->
                client
                    .escalations()
                    .resolve("esc_missing", EscalationResolveParams.reject("approver_7")))
        .isInstanceOf(NotFoundException.class);
  }

  @Test
  void escalationGetListAndServerFailure() {
    assertThat(client.escalations().get("esc_01").escalationTo()).isEqualTo("manager");
    assertThat(
            client
                .escalations()
                .list(EscalationListParams.status(EscalationStatus.PENDING))
                .escalations())
        .hasSize(1);
    assertThatThrownBy(() -> client.escalations().get("esc_missing"))
        .isInstanceOf(NotFoundException.class);
    assertThatThrownBy(() -> client.escalations().get("esc_boom"))
        .isInstanceOfSatisfying(
            ServerException.class, e -> assertThat(e.code()).isEqualTo("internal_error"));
    assertThat(timing.sleeps()).hasSize(2);
  }

  // Bundles
  private static final BundleParams BUNDLE =
      BundleParams.builder()
          .id("support-bot-default")
          .agentId("support-bot")
          .scope("email.send")
          .scope("crm.read")
          .requiresConfirmFor("email.send")
          .defaultExpiryDays(30)
          .build();

  @Test
  void bundleCreateGetListEditDelete() {
    assertThat(client.bundles().create(BUNDLE).status()).isEqualTo(BundleStatus.ACTIVE);
    assertThat(client.bundles().get("support-bot-default").defaultExpiryDays()).isEqualTo(30);
    assertThat(client.bundles().list().bundles()).hasSize(1);
    assertThat(client.bundles().edit("support-bot-default", BUNDLE).id())
        .isEqualTo("support-bot-default");
    Bundle deleted = client.bundles().delete("support-bot-default");
    assertThat(deleted.status()).isEqualTo(BundleStatus.of("deleted"));
  }

  @Test
  void bundleErrorShapes() {
    BundleParams taken =
        BundleParams.builder().id("taken").agentId("support-bot").scope("s").build();
    assertThatThrownBy(() -> client.bundles().create(taken))
        .isInstanceOfSatisfying(
            ConflictException.class, e -> assertThat(e.code()).isEqualTo("bundle_exists"));
    assertThatThrownBy(() -> client.bundles().get("missing")).isInstanceOf(NotFoundException.class);
    assertThatThrownBy(() -> client.bundles().delete("missing"))
        .isInstanceOf(NotFoundException.class);
  }

  // Receipts
  @Test
  void receiptGetSignedAndPending() {
    assertThat(client.receipts().get("01JDQ3Z8W4K2M7N9P1Q3R5S7T9"))
        .isInstanceOf(ReceiptLookup.Signed.class);
    assertThat(client.receipts().get("01JDQ3Z8W4K2M7N9P1Q3R5S7T0"))
        .isInstanceOf(PendingReceipt.class);
    assertThat(client.receipts().awaitSigned("01JDQ3Z8W4K2M7N9P1Q3R5S7T9", Duration.ofSeconds(1)))
        .extracting(SignedReceipt::workspaceId)
        .isEqualTo("ws_acme");
  }

  @Test
  void autoPagingWalksTheChain() {
    List<ReceiptSummary> chain =
        client
            .receipts()
            .listAutoPaging(ReceiptListParams.builder().authorizationId("auth_01").build())
            .stream()
            .toList();

    assertThat(chain)
        .extracting(ReceiptSummary::decision)
        .containsExactly(
            Decision.AUTHORIZATION_GRANTED, Decision.ALLOW, Decision.AUTHORIZATION_REVOKED);
  }

  /** The {@code receipt} member of a {@code GET /v1/receipts/{id}} body, cut out of the text. */
  private static String receiptMember(String body) {
    int start = body.indexOf('{', body.indexOf("\"receipt\""));
    int depth = 0;
    for (int i = start; ; i++) {
      char c = body.charAt(i);
      depth += c == '{' ? 1 : c == '}' ? -1 : 0;
      if (depth == 0) {
        return body.substring(start, i + 1);
      }
    }
  }

  @Test
  void awaitSignedJsonReturnsTheReceiptMemberByteForByteAsServed() {
    String served = receiptMember(Fixtures.body("receipt-signed.json"));

    String json =
        client.receipts().awaitSignedJson("01JDQ3Z8W4K2M7N9P1Q3R5S7T9", Duration.ofSeconds(1));

    assertThat(json).isEqualTo(served).contains("\n    \"version\": \"1.0\",\n");
  }

  @Test
  void chainJsonReturnsEveryReceiptOfTheAuthorizationAsServedOldestFirst() {
    List<String> chain = client.receipts().chainJson("auth_chain", Duration.ofSeconds(1));

    assertThat(chain)
        .containsExactly(
            receiptMember(Fixtures.body("receipt-chain-create.json")),
            receiptMember(Fixtures.body("receipt-chain-scope.json")),
            receiptMember(Fixtures.body("receipt-chain-revoke.json")));
    // escapes and spacing as served: nothing was parsed and written again
    assertThat(chain.get(1)).contains("\"resource\" : \"mailbox:\\u0034\\u0032\"");
    assertThatThrownBy(() -> chain.add("{}")).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void asyncJsonExportsEqualTheBlockingOnes() throws Exception {
    assertThat(
            client
                .async()
                .receipts()
                .awaitSignedJson("01JDQ3Z8W4K2M7N9P1Q3R5S7T9", Duration.ofSeconds(1))
                .get(5, TimeUnit.SECONDS))
        .isEqualTo(receiptMember(Fixtures.body("receipt-signed.json")));
    assertThat(
            client
                .async()
                .receipts()
                .chainJson("auth_chain", Duration.ofSeconds(1))
                .get(5, TimeUnit.SECONDS))
        .isEqualTo(client.receipts().chainJson("auth_chain", Duration.ofSeconds(1)));
    assertThat(client.async().workspaces().keysJson("ws_acme").get(5, TimeUnit.SECONDS))
        .isEqualTo(Fixtures.body("workspace-keys.json"));
  }

  @Test
  void receiptErrorShapes() {
    assertThatThrownBy(() -> client.receipts().get("01JDQ3Z8W4K2M7N9P1Q3R5S7ZZ"))
        .isInstanceOf(NotFoundException.class);
    assertThatThrownBy(
            () ->
                client
                    .receipts()
                    .get(
                        "01JDQ3Z8W4K2M7N9P1Q3R5S7GW",
                        RequestOptions.builder().maxRetries(0).build()))
        .isInstanceOf(ServerException.class)
        .hasMessageContaining("found text/html");
    assertThatThrownBy(
            () -> client.receipts().list(ReceiptListParams.builder().cursor("stale").build()))
        .isInstanceOf(BadRequestException.class);
  }

  // Tombstones
  @Test
  void tombstoneCreateListAndErrorShapes() {
    assertThat(client.tombstones().create("mailbox:42", "account closed").resource())
        .isEqualTo("mailbox:42");
    assertThat(client.tombstones().list().tombstones()).hasSize(1);
    Tombstone pattern = client.tombstones().createPattern("db/prod*", "production");
    assertThat(pattern.resource()).isNull();
    assertThat(pattern.resourcePattern()).isEqualTo("db/prod*");
    assertThat(
            client
                .async()
                .tombstones()
                .createPattern("db/prod*", "production")
                .join()
                .resourcePattern())
        .isEqualTo("db/prod*");
    assertThatThrownBy(() -> client.tombstones().create("oversized"))
        .isInstanceOf(PayloadTooLargeException.class);
    assertThatThrownBy(() -> client.tombstones().list(ListParams.none().withCursor("rate_limited")))
        .isInstanceOfSatisfying(
            RateLimitException.class,
            e -> assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(60)));
  }

  // Workspaces
  @Test
  void keysAreFetchedWithoutAnApiKey() {
    assertThat(client.workspaces().keys("ws_acme").keys())
        .extracting("keyId")
        .containsExactly("key_2026_10", "key_2026_11");
    assertThatThrownBy(() -> client.workspaces().keys("ws_missing"))
        .isInstanceOf(NotFoundException.class);
  }

  @Test
  void keysJsonIsTheBodyAsServedFetchedWithoutAnApiKey() {
    assertThat(client.workspaces().keysJson("ws_acme"))
        .isEqualTo(Fixtures.body("workspace-keys.json"));
    assertThat(
            client.workspaces().keysJsonWithResponse("ws_acme", RequestOptions.none()).requestId())
        .isEqualTo("req_wm_workspace-keys");
    assertThatThrownBy(() -> client.workspaces().keysJson("ws_missing"))
        .isInstanceOf(NotFoundException.class);
  }
}
