package dev.agentauth.client.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.ApiException;
import dev.agentauth.client.ApiResponse;
import dev.agentauth.client.AuthenticationException;
import dev.agentauth.client.BadRequestException;
import dev.agentauth.client.CheckParams;
import dev.agentauth.client.ConflictException;
import dev.agentauth.client.EscalationResolveParams;
import dev.agentauth.client.FallbackPolicy;
import dev.agentauth.client.GoneException;
import dev.agentauth.client.NotFoundException;
import dev.agentauth.client.PayloadTooLargeException;
import dev.agentauth.client.PlanRequiredException;
import dev.agentauth.client.RateLimitException;
import dev.agentauth.client.RequestOptions;
import dev.agentauth.model.Authorization;
import dev.agentauth.model.CheckResult;
import dev.agentauth.model.Decision;
import dev.agentauth.model.EscalationStatus;
import dev.agentauth.model.FieldError;
import dev.agentauth.model.SignedReceipt;
import dev.agentauth.model.Tombstone;
import java.time.Duration;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Error answers of the reference server surface as the documented {@link ApiException} subclasses,
 * with the problem's {@code code}, field errors and the request id, and messages that name the
 * operation but never the API key.
 */
class ClientErrorsIT {
  private ItServer it;

  @BeforeEach
  void start() {
    it = ItServer.start();
  }

  @AfterEach
  void stop() {
    it.close();
  }

  private static <E extends ApiException> E problem(
      Class<E> type, int status, String code, ThrowingCallable call) {
    E e = catchThrowableOfType(type, call);
    assertThat(e).as("expected %s", type.getSimpleName()).isNotNull();
    assertThat(e.statusCode()).isEqualTo(status);
    assertThat(e.code()).isEqualTo(code);
    assertThat(e.requestId()).isNotBlank();
    assertThat(e.problem()).isNotNull();
    assertThat(e.problem().requestId()).isEqualTo(e.requestId());
    assertThat(e.problem().status()).isEqualTo(status);
    assertThat(e.getMessage()).contains("HTTP " + status).contains(code);
    return e;
  }

  @Test
  void invalidRequestIsABadRequestExceptionNamingTheFieldsAndTheRequestId() {
    BadRequestException e =
        problem(
            BadRequestException.class,
            400,
            "invalid_request",
            () ->
                it.client
                    .authorizations()
                    .create(
                        it.inline("email.send", "bad name!").build(),
                        RequestOptions.builder().header("X-Request-Id", "it-req-400").build()));
    assertThat(e.fieldErrors()).extracting(FieldError::field).contains("scopes[1].name");
    assertThat(e.requestId()).isEqualTo("it-req-400");
    assertThat(e.getMessage())
        .startsWith("POST /v1/authorizations failed: HTTP 400")
        .contains("scopes[1].name")
        .contains("it-req-400")
        .doesNotContain(it.server.apiKey());

    BadRequestException tooFar =
        problem(
            BadRequestException.class,
            400,
            "invalid_request",
            () ->
                it.client
                    .authorizations()
                    .create(
                        it.inline("email.send")
                            .expiresAt(it.clock.instant().plus(Duration.ofDays(400)))
                            .build()));
    assertThat(tooFar.fieldErrors()).extracting(FieldError::field).contains("expires_at");

    BadRequestException pii =
        problem(
            BadRequestException.class,
            400,
            "pii_not_allowed",
            () ->
                it.client
                    .authorizations()
                    .create(it.inline("email.send").agentId("555-123-4567").build()));
    assertThat(pii.fieldErrors()).extracting(FieldError::field).contains("agent_id");

    // a rejected request changed nothing
    assertThat(it.client.receipts().list().receipts()).isEmpty();
  }

  @Test
  void whatTheClientCanKnowIsWrongFailsBeforeAnyNetworkCall() {
    AgentAuthClient nowhere = it.clientBuilder().baseUrl("http://127.0.0.1:1").build();
    assertThatThrownBy(() -> CheckParams.of("authz_1"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> CheckParams.of("authz_1", "a", "a"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> it.inline("email.send").userId("ada@example.com").build())
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> nowhere.authorizations().get(".."))
        .isInstanceOf(IllegalArgumentException.class);
    AgentAuthClient auditor = AgentAuthClient.builder().baseUrl(it.server.baseUrl()).build();
    assertThatThrownBy(() -> auditor.authorizations().get("authz_1"))
        .isInstanceOf(IllegalStateException.class);
    // the public keys endpoint needs no key
    assertThat(auditor.workspaces().keys(it.workspaceId()).keys()).isNotEmpty();
  }

  @Test
  void unknownApiKeyIsAnAuthenticationExceptionEvenForChecksWithFallback() {
    String wrongKey = "sk_not_a_real_key_0123456789";
    AgentAuthClient wrong =
        it.clientBuilder().apiKey(wrongKey).fallback(FallbackPolicy.failOpen()).build();

    AuthenticationException e =
        problem(
            AuthenticationException.class,
            401,
            "unauthenticated",
            () -> wrong.check(CheckParams.of("authz_1", "email.send")));
    assertThat(e.getMessage()).doesNotContain(wrongKey);
    problem(
        AuthenticationException.class,
        401,
        "unauthenticated",
        () -> wrong.authorizations().create(it.inline("email.send").build()));
  }

  @Test
  void proFeaturesOnAFreeWorkspaceArePlanRequired() {
    String ws = ItServer.uniqueId("ws_free");
    String key = it.newWorkspace(ws, "free");
    AgentAuthClient free = it.clientBuilder().apiKey(key).build();

    problem(
        PlanRequiredException.class,
        402,
        "plan_required",
        () ->
            free.authorizations()
                .create(it.inline("pay.send").requiresEscalationFor("pay.send").build()));
    problem(
        PlanRequiredException.class,
        402,
        "plan_required",
        () -> free.authorizations().create(it.inline("llm.call").budgetLimitMicros(10).build()));

    // the rest works on free, and its receipts verify against that workspace's own keys
    Authorization a = free.authorizations().create(it.inline("email.send").build());
    CheckResult r =
        free.check(CheckParams.of(a.authorizationId(), "email.send")).results().get("email.send");
    assertThat(r.decision()).isEqualTo(Decision.ALLOW);
    SignedReceipt signed = free.receipts().awaitSigned(r.receipt(), ItServer.AWAIT);
    assertThat(signed.workspaceId()).isEqualTo(ws);
    ItServer.assertVerifies(it.verifier(free, ws), signed);
    assertThat(
            it.verifier(free, ws)
                .verify(free.receipts().awaitSignedJson(signed.receiptId(), ItServer.AWAIT))
                .valid())
        .isTrue();
    // ... and not against another workspace's keys
    assertThat(it.verifier().verify(ItServer.json(signed)).valid()).isFalse();
    // another workspace's authorization is not found
    problem(
        NotFoundException.class,
        404,
        "not_found",
        () -> it.client.authorizations().get(a.authorizationId()));
  }

  @Test
  void unknownIdsAreNotFound() {
    problem(
        NotFoundException.class,
        404,
        "not_found",
        () -> it.client.authorizations().get("authz_missing"));
    problem(
        NotFoundException.class,
        404,
        "not_found",
        () -> it.client.authorizations().revoke("authz_missing"));
    problem(
        NotFoundException.class,
        404,
        "not_found",
        () -> it.client.receipts().get("01ARZ3NDEKTSV4RRFFQ69G5FAV"));
    problem(
        NotFoundException.class,
        404,
        "not_found",
        () ->
            it.client
                .escalations()
                .resolve("esc_missing", EscalationResolveParams.approve("approver_1")));
    problem(NotFoundException.class, 404, "not_found", () -> it.client.bundles().get("nope"));
    NotFoundException e =
        problem(
            NotFoundException.class, 404, "not_found", () -> it.client.bundles().delete("nope"));
    // the template, not the id, names the operation
    assertThat(e.getMessage()).startsWith("DELETE /v1/agent-scope-bundles/{id} failed");
  }

  @Test
  void secondRevocationIsAConflictAlreadyRevoked() {
    Authorization a = it.authorize("email.send");
    it.client.authorizations().revoke(a.authorizationId());
    problem(
        ConflictException.class,
        409,
        "already_revoked",
        () -> it.client.authorizations().revoke(a.authorizationId()));
    assertThat(it.verifyChain(a.authorizationId())).hasSize(2);
  }

  @Test
  void reusedIdempotencyKeyReplaysTheSameRequestAndRejectsAnotherBody() {
    RequestOptions key = RequestOptions.builder().idempotencyKey("it-tombstone-1").build();
    ApiResponse<Tombstone> first =
        it.client.tombstones().createWithResponse("mailbox:1", "closed", key);
    ApiResponse<Tombstone> replay =
        it.client.tombstones().createWithResponse("mailbox:1", "closed", key);
    assertThat(first.idempotentReplayed()).isFalse();
    assertThat(replay.idempotentReplayed()).isTrue();
    assertThat(replay.statusCode()).isEqualTo(201);
    assertThat(replay.value()).isEqualTo(first.value());

    problem(
        ConflictException.class,
        409,
        "idempotency_conflict",
        () -> it.client.tombstones().create("mailbox:2", "closed", key));
    assertThat(it.client.tombstones().list().tombstones())
        .extracting(Tombstone::resource)
        .containsExactly("mailbox:1");
  }

  @Test
  void usedUnknownOrExpiredConfirmationNoncesAreGone() {
    problem(
        GoneException.class,
        410,
        "nonce_gone",
        () -> it.client.confirmations().approve("nonce_that_never_was"));

    Authorization a =
        it.client
            .authorizations()
            .create(it.inline("email.send").requiresConfirmFor("email.send").build());
    String nonce =
        it.client
            .check(CheckParams.of(a.authorizationId(), "email.send"))
            .results()
            .get("email.send")
            .confirmNonce();
    assertThat(nonce).isNotBlank();

    it.clock.advance(Duration.ofMinutes(5).plusSeconds(1));
    problem(
        GoneException.class,
        410,
        "nonce_gone",
        () -> it.client.confirmations().approve(nonce, Duration.ofSeconds(60)));
    problem(GoneException.class, 410, "nonce_gone", () -> it.client.confirmations().decline(nonce));
    assertThat(it.verifyChain(a.authorizationId()))
        .extracting(r -> r.decision().value())
        .isEqualTo(List.of("authorization_granted", "confirm"));
  }

  @Test
  void oversizedBodyIsPayloadTooLarge() {
    Authorization a = it.authorize("email.send");
    problem(
        PayloadTooLargeException.class,
        413,
        "payload_too_large",
        () ->
            it.client.check(
                CheckParams.builder()
                    .authorizationId(a.authorizationId())
                    .scope("email.send")
                    .putContext("blob", "x".repeat(1_100_000))
                    .build()));
    assertThat(it.verifyChain(a.authorizationId())).hasSize(1);
  }

  @Test
  void perKeyRateLimitIsARateLimitExceptionWithRetryAfterAndNeverAFallback() {
    try (ItServer limited = ItServer.start(b -> b.rateLimit(1))) {
      AgentAuthClient client =
          limited.clientBuilder().maxRetries(0).fallback(FallbackPolicy.failOpen()).build();
      RateLimitException e = null;
      for (int i = 0; i < 10 && e == null; i++) {
        try {
          client.check(CheckParams.of("authz_1", "email.send"));
        } catch (RateLimitException limitedNow) {
          e = limitedNow;
        }
      }
      assertThat(e).as("no 429 within 10 quick checks at 1 request/s").isNotNull();
      RateLimitException thrown = e;
      problem(
          RateLimitException.class,
          429,
          "rate_limited",
          () -> {
            throw thrown;
          });
      assertThat(thrown.retryAfter()).isNotNull().isPositive();
    }
  }

  @Test
  void revocationInvalidatesOpenNoncesAndPendingEscalationsAndExpiryEndsEscalations() {
    Authorization a =
        it.client
            .authorizations()
            .create(
                it.inline("email.send", "pay.send")
                    .requiresConfirmFor("email.send")
                    .requiresEscalationFor("pay.send")
                    .build());
    var r = it.client.check(CheckParams.of(a.authorizationId(), "email.send", "pay.send"));
    String nonce = r.results().get("email.send").confirmNonce();
    String escalationId = r.results().get("pay.send").escalationId();
    it.client.authorizations().revoke(a.authorizationId());
    problem(GoneException.class, 410, "nonce_gone", () -> it.client.confirmations().approve(nonce));
    problem(
        ConflictException.class,
        409,
        "escalation_conflict",
        () ->
            it.client
                .escalations()
                .resolve(escalationId, EscalationResolveParams.approve("approver_1")));

    Authorization b =
        it.client
            .authorizations()
            .create(it.inline("pay.send").requiresEscalationFor("pay.send").build());
    String pending =
        it.client
            .check(CheckParams.of(b.authorizationId(), "pay.send"))
            .results()
            .get("pay.send")
            .escalationId();
    it.clock.advance(Duration.ofHours(24).plusSeconds(1));
    assertThat(it.client.escalations().get(pending).status()).isEqualTo(EscalationStatus.EXPIRED);
    problem(
        ConflictException.class,
        409,
        "escalation_conflict",
        () ->
            it.client
                .escalations()
                .resolve(pending, EscalationResolveParams.approve("approver_1")));
    assertThat(it.verifyChain(a.authorizationId())).hasSize(4);
    assertThat(it.verifyChain(b.authorizationId())).hasSize(2);
  }
}
