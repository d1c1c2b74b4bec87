package dev.agentauth.client.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.ApiResponse;
import dev.agentauth.client.AuthorizationRevokeParams;
import dev.agentauth.client.BadRequestException;
import dev.agentauth.client.CheckParams;
import dev.agentauth.client.ConnectionException;
import dev.agentauth.client.EscalationResolveParams;
import dev.agentauth.client.FallbackPolicy;
import dev.agentauth.client.ReceiptListParams;
import dev.agentauth.client.RequestOptions;
import dev.agentauth.client.RequestTimeoutException;
import dev.agentauth.client.ServerException;
import dev.agentauth.model.Authorization;
import dev.agentauth.model.BudgetBlock;
import dev.agentauth.model.CheckResponse;
import dev.agentauth.model.CheckResult;
import dev.agentauth.model.ConfirmationDecision;
import dev.agentauth.model.ConfirmationResolution;
import dev.agentauth.model.Decision;
import dev.agentauth.model.EscalationResolveResponse;
import dev.agentauth.model.EscalationStatus;
import dev.agentauth.model.FallbackMode;
import dev.agentauth.model.FieldError;
import dev.agentauth.model.Reason;
import dev.agentauth.model.ReceiptSummary;
import dev.agentauth.model.RevokeAuthorizationResponse;
import dev.agentauth.model.ScopeConstraints;
import dev.agentauth.model.ScopeEntry;
import dev.agentauth.model.SignedReceipt;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Retries and fallback against the real server, with faults injected between client and server: a
 * retried call after a lost response is replayed by the server (same {@code Idempotency-Key}) and
 * never counted twice; a check the service cannot answer is decided by the fallback policy, without
 * a receipt.
 */
class ClientRetryIT {
  private ItServer it;

  @BeforeEach
  void start() {
    it = ItServer.start();
  }

  @AfterEach
  void stop() {
    it.close();
  }

  /**
   * For requests to {@code method path}: forwards the first {@code lose} attempts to the server (so
   * the server decides, counts and stores its answer), reads the answer, and then throws an
   * IOException as if the connection dropped before the response arrived. Later attempts pass
   * through. Records every attempt's {@code Idempotency-Key}.
   */
  static final class LoseResponses implements Interceptor {
    private final String method;
    private final String path;
    private final AtomicInteger toLose;
    final List<String> idempotencyKeys = new CopyOnWriteArrayList<>();
    final List<String> lostBodies = new CopyOnWriteArrayList<>();

    LoseResponses(String method, String path, int lose) {
      this.method = method;
      this.path = path;
      this.toLose = new AtomicInteger(lose);
    }

    @Override
    public Response intercept(Chain chain) throws IOException {
      Request request = chain.request();
      if (!request.method().equals(method) || !request.url().encodedPath().startsWith(path)) {
        return chain.proceed(request);
      }
      idempotencyKeys.add(request.header("Idempotency-Key"));
      Response response = chain.proceed(request);
      if (toLose.getAndDecrement() > 0) {
        try (response) {
          lostBodies.add(response.body().string());
        }
        throw new IOException("injected: connection reset after the server answered");
      }
      return response;
    }

    int attempts() {
      return idempotencyKeys.size();
    }
  }

  /** Answers {@code 503} to every {@code POST /v1/check} without forwarding it. */
  static final class Unavailable implements Interceptor {
    final AtomicInteger attempts = new AtomicInteger();
    final String retryAfter;

    Unavailable() {
      this(null);
    }

    /** Answers as the server does under overload: 503 unavailable with this Retry-After. */
    Unavailable(String retryAfter) {
      this.retryAfter = retryAfter;
    }

    @Override
    public Response intercept(Chain chain) throws IOException {
      Request request = chain.request();
      if (!request.url().encodedPath().equals("/v1/check")) {
        return chain.proceed(request);
      }
      attempts.incrementAndGet();
      Response.Builder b =
          new Response.Builder()
              .request(request)
              .protocol(Protocol.HTTP_1_1)
              .code(503)
              .message("Service Unavailable")
              .header("X-Request-Id", "injected-503")
              .body(
                  ResponseBody.create(
                      "{\"type\":\"/errors/unavailable\",\"title\":\"Unavailable\",\"status\":503,"
                          + "\"code\":\"unavailable\",\"request_id\":\"injected-503\"}",
                      MediaType.get("application/problem+json")));
      if (retryAfter != null) {
        b.header("Retry-After", retryAfter);
      }
      return b.build();
    }
  }

  private AgentAuthClient clientWith(Interceptor interceptor) {
    return it.clientBuilder()
        .okHttpClient(ItServer.OK_HTTP.newBuilder().addInterceptor(interceptor).build())
        // generous, so a slow CI machine never turns the retry into a timeout fallback
        .checkTimeout(Duration.ofSeconds(5))
        .build();
  }

  private static CheckResponse parse(String body) {
    try {
      return ItServer.MAPPER.readValue(body, CheckResponse.class);
    } catch (JsonProcessingException e) {
      throw new AssertionError(e);
    }
  }

  private List<ReceiptSummary> allows(String authorizationId) {
    return it
        .client
        .receipts()
        .listAutoPaging(
            ReceiptListParams.builder()
                .authorizationId(authorizationId)
                .decision(Decision.ALLOW)
                .build())
        .stream()
        .toList();
  }

  private Authorization onePerDay(String scope) {
    return it.client
        .authorizations()
        .create(
            it.inline().scope(new ScopeEntry(scope, new ScopeConstraints(1L, null, null))).build());
  }

  @Test
  void retriedCheckAfterALostResponseIsReplayedAndCountedOnce() {
    Authorization a = onePerDay("email.send");
    String id = a.authorizationId();
    LoseResponses lose = new LoseResponses("POST", "/v1/check", 1);
    AgentAuthClient client = clientWith(lose);

    ApiResponse<CheckResponse> resp =
        client.checkWithResponse(CheckParams.of(id, "email.send"), RequestOptions.none());

    // two attempts with one key; the server decided on the first and replayed it on the second
    assertThat(lose.attempts()).isEqualTo(2);
    assertThat(lose.idempotencyKeys.get(0)).isNotBlank().isEqualTo(lose.idempotencyKeys.get(1));
    assertThat(resp.fallbackCause()).isNull();
    assertThat(resp.statusCode()).isEqualTo(200);
    assertThat(resp.idempotentReplayed()).isTrue();
    CheckResult result = resp.value().results().get("email.send");
    assertThat(result.decision()).isEqualTo(Decision.ALLOW);
    assertThat(result.reason()).isEqualTo(Reason.AUTHORIZATION_GRANTED_SCOPE_ACTIVE);
    CheckResult lost = parse(lose.lostBodies.get(0)).results().get("email.send");
    assertThat(lost.decision()).isEqualTo(Decision.ALLOW);
    assertThat(result.receipt().receiptId()).isEqualTo(lost.receipt().receiptId());

    // max_per_day = 1 was consumed exactly once
    CheckResult next =
        it.client.check(CheckParams.of(id, "email.send")).results().get("email.send");
    assertThat(next.decision()).isEqualTo(Decision.DENY);
    assertThat(next.reason()).isEqualTo(Reason.RATE_LIMIT_EXCEEDED);
    assertThat(allows(id))
        .extracting(ReceiptSummary::receiptId)
        .containsExactly(result.receipt().receiptId());

    SignedReceipt signed = it.signed(result.receipt());
    assertThat(signed.decision()).isEqualTo(Decision.ALLOW);
    assertThat(it.verifyChain(id))
        .extracting(r -> r.decision().value())
        .containsExactly("authorization_granted", "allow", "deny");
  }

  @Test
  void asyncRetriedCheckAfterALostResponseIsReplayedAndCountedOnce() throws Exception {
    Authorization a = onePerDay("email.send");
    String id = a.authorizationId();
    LoseResponses lose = new LoseResponses("POST", "/v1/check", 1);

    ApiResponse<CheckResponse> resp =
        clientWith(lose)
            .async()
            .checkWithResponse(CheckParams.of(id, "email.send"), RequestOptions.none())
            .get(15, TimeUnit.SECONDS);

    assertThat(lose.attempts()).isEqualTo(2);
    assertThat(lose.idempotencyKeys.get(0)).isEqualTo(lose.idempotencyKeys.get(1));
    assertThat(resp.idempotentReplayed()).isTrue();
    CheckResult result = resp.value().results().get("email.send");
    assertThat(result.isAllowed()).isTrue();
    assertThat(result.receipt().receiptId())
        .isEqualTo(parse(lose.lostBodies.get(0)).results().get("email.send").receipt().receiptId());
    assertThat(
            it.client.check(CheckParams.of(id, "email.send")).results().get("email.send").reason())
        .isEqualTo(Reason.RATE_LIMIT_EXCEEDED);
    assertThat(allows(id)).hasSize(1);
    assertThat(it.verifyChain(id)).hasSize(3);
  }

  @Test
  void retriedBudgetedCheckIsSpentOnce() {
    Authorization a =
        it.client.authorizations().create(it.inline("llm.call").budgetLimitMicros(1_000).build());
    String id = a.authorizationId();
    LoseResponses lose = new LoseResponses("POST", "/v1/check", 1);
    CheckParams spend600 =
        CheckParams.builder()
            .authorizationId(id)
            .scope("llm.call")
            .estimatedCostMicros(600)
            .build();

    ApiResponse<CheckResponse> resp =
        clientWith(lose).checkWithResponse(spend600, RequestOptions.none());

    assertThat(resp.idempotentReplayed()).isTrue();
    CheckResult result = resp.value().results().get("llm.call");
    assertThat(result.isAllowed()).isTrue();
    assertThat(result.budget()).isEqualTo(new BudgetBlock(1_000, 0, 600, 600));
    assertThat(it.client.authorizations().get(id).budgetSpentMicros()).isEqualTo(600L);
    CheckResult over = it.client.check(spend600).results().get("llm.call");
    assertThat(over.reason()).isEqualTo(Reason.BUDGET_EXCEEDED);
    assertThat(over.budget()).isEqualTo(new BudgetBlock(1_000, 600, 600, 600));
    assertThat(allows(id)).hasSize(1);
    assertThat(it.verifyChain(id)).hasSize(3);
  }

  @Test
  void retriedRevocationAfterALostResponseGetsTheFirstAnswerNotAConflict() {
    Authorization a = it.authorize("email.send");
    String id = a.authorizationId();
    LoseResponses lose = new LoseResponses("DELETE", "/v1/authorizations/", 1);

    ApiResponse<RevokeAuthorizationResponse> resp =
        clientWith(lose)
            .authorizations()
            .revokeWithResponse(id, AuthorizationRevokeParams.none(), RequestOptions.none());

    assertThat(lose.attempts()).isEqualTo(2);
    assertThat(resp.statusCode()).isEqualTo(200);
    assertThat(resp.idempotentReplayed()).isTrue();
    assertThat(resp.value().authorizationId()).isEqualTo(id);
    assertThat(lose.lostBodies.get(0)).contains(resp.value().receipt().receiptId());
    assertThat(it.verifyChain(id))
        .extracting(r -> r.decision().value())
        .containsExactly("authorization_granted", "authorization_revoked");
  }

  @Test
  void retriedConfirmationApprovalAfterALostResponseIsReplayedNotGone() {
    Authorization a =
        it.client
            .authorizations()
            .create(it.inline("email.send").requiresConfirmFor("email.send").build());
    CheckParams check = CheckParams.of(a.authorizationId(), "email.send");
    String nonce = it.client.check(check).results().get("email.send").confirmNonce();
    LoseResponses lose = new LoseResponses("POST", "/v1/confirmations/", 1);

    ApiResponse<ConfirmationResolution> resp =
        clientWith(lose)
            .confirmations()
            .approveWithResponse(nonce, Duration.ofSeconds(60), RequestOptions.none());

    assertThat(lose.attempts()).isEqualTo(2);
    assertThat(resp.idempotentReplayed()).isTrue();
    assertThat(resp.value().decision()).isEqualTo(ConfirmationDecision.APPROVED);
    assertThat(lose.lostBodies.get(0)).contains(resp.value().authorizationId());
    assertThat(it.client.check(check).results().get("email.send").reason())
        .isEqualTo(Reason.AUTHORIZATION_GRANTED_VIA_CONFIRMATION);
    assertThat(it.verifyChain(a.authorizationId())).hasSize(3);
  }

  @Test
  void retriedEscalationResolutionAfterALostResponseKeepsItsOneReceipt() {
    Authorization a =
        it.client
            .authorizations()
            .create(it.inline("pay.send").requiresEscalationFor("pay.send").build());
    CheckParams check = CheckParams.of(a.authorizationId(), "pay.send");
    String escalationId = it.client.check(check).results().get("pay.send").escalationId();
    LoseResponses lose = new LoseResponses("POST", "/v1/escalations/", 1);

    ApiResponse<EscalationResolveResponse> resp =
        clientWith(lose)
            .escalations()
            .resolveWithResponse(
                escalationId, EscalationResolveParams.approve("approver_7"), RequestOptions.none());

    assertThat(lose.attempts()).isEqualTo(2);
    assertThat(resp.idempotentReplayed()).isTrue();
    assertThat(resp.value().status()).isEqualTo(EscalationStatus.APPROVED);
    // the first answer, receipt included (a repeated resolution would have none)
    assertThat(resp.value().receipt()).isNotNull();
    assertThat(lose.lostBodies.get(0)).contains(resp.value().receipt().receiptId());
    assertThat(it.client.check(check).results().get("pay.send").reason())
        .isEqualTo(Reason.AUTHORIZATION_GRANTED_VIA_ESCALATION);
    assertThat(it.verifyChain(a.authorizationId()))
        .extracting(r -> r.decision().value())
        .containsExactly("authorization_granted", "escalate", "escalation_approved", "allow");
  }

  @Test
  void serverErrorsAreRetriedThenFallBackWithoutReachingTheServer() {
    Authorization a = it.authorize("email.send");
    Unavailable unavailable = new Unavailable();

    ApiResponse<CheckResponse> resp =
        clientWith(unavailable)
            .checkWithResponse(
                CheckParams.of(a.authorizationId(), "email.send"), RequestOptions.none());

    assertThat(unavailable.attempts).hasValue(3); // first try + 2 retries
    assertThat(resp.fallbackCause()).isInstanceOf(ServerException.class);
    assertThat(((ServerException) resp.fallbackCause()).statusCode()).isEqualTo(503);
    CheckResult r = resp.value().results().get("email.send");
    assertThat(r.decision()).isEqualTo(Decision.DENY);
    // the service was reached but failed: not "unreachable" (decisions §13)
    assertThat(r.reason()).isEqualTo(Reason.FALLBACK_CLOSED_SERVER_ERROR);
    assertThat(r.receipt()).isNull();
    // nothing reached the server: the chain is the creation alone
    assertThat(it.verifyChain(a.authorizationId())).hasSize(1);
  }

  @Test
  void anOverloadedServiceAskingForMoreThanTheCheckTimeoutFallsBackAtOnceAsServerError() {
    Unavailable overloaded = new Unavailable("1");
    AgentAuthClient c =
        it.clientBuilder()
            .okHttpClient(ItServer.OK_HTTP.newBuilder().addInterceptor(overloaded).build())
            .fallback(FallbackPolicy.failClosed().withFailOpen("docs.search"))
            .build(); // default check timeout: 1 s, which a 1 s Retry-After does not fit in

    ApiResponse<CheckResponse> resp =
        c.checkWithResponse(
            CheckParams.of("authz_1", "email.send", "docs.search"), RequestOptions.none());
    CheckResponse r = resp.value();

    // no retry sooner than the service asked, and no wait past the check timeout
    assertThat(overloaded.attempts).hasValue(1);
    assertThat(resp.fallbackCause()).isInstanceOf(ServerException.class);
    assertThat(r.results().get("email.send").reason())
        .isEqualTo(Reason.FALLBACK_CLOSED_SERVER_ERROR);
    assertThat(r.results().get("docs.search").reason())
        .isEqualTo(Reason.FALLBACK_OPEN_SERVER_ERROR);
  }

  @Test
  void aResourceCraftedToBreakTheServiceIsRejectedNotAllowedByFailOpen() throws Exception {
    // issue 14: with fail_open on mail.send, a 500 for this resource used to come back as allow
    Authorization a =
        it.client
            .authorizations()
            .create(
                it.inline()
                    .scope(
                        new ScopeEntry(
                            "mail.send", new ScopeConstraints(null, "mailbox/alice", null)))
                    .build());
    AgentAuthClient failOpen =
        it.clientBuilder().fallback(FallbackPolicy.failClosed().withFailOpen("mail.send")).build();
    CheckParams crafted =
        CheckParams.builder()
            .authorizationId(a.authorizationId())
            .scope("mail.send")
            .resource("mailbox/bob\ud800")
            .build();

    assertThat(
            failOpen
                .check(
                    CheckParams.builder()
                        .authorizationId(a.authorizationId())
                        .scope("mail.send")
                        .resource("mailbox/bob")
                        .build())
                .results()
                .get("mail.send")
                .reason())
        .isEqualTo(Reason.SCOPE_NOT_AUTHORIZED);
    assertRejected(failOpen, crafted);
    it.client.authorizations().revoke(a.authorizationId());
    assertRejected(failOpen, crafted);

    assertThat(it.verifyChain(a.authorizationId()))
        .extracting(r -> r.decision().value())
        .doesNotContain("allow");
  }

  private static void assertRejected(AgentAuthClient c, CheckParams crafted) throws Exception {
    assertThatThrownBy(() -> c.check(crafted))
        .isInstanceOfSatisfying(
            BadRequestException.class,
            e -> assertThat(e.fieldErrors()).extracting(FieldError::field).contains("resource"));
    assertThatThrownBy(() -> c.async().check(crafted).get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(BadRequestException.class);
  }

  // ---- fallback

  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Test
  void unreachableServiceGivesAFallbackDenyWithoutReceipt() throws IOException {
    Authorization a = it.authorize("email.send");
    AgentAuthClient unreachable =
        it.clientBuilder().baseUrl("http://127.0.0.1:" + closedPort()).build();

    ApiResponse<CheckResponse> resp =
        unreachable.checkWithResponse(
            CheckParams.of(a.authorizationId(), "email.send"), RequestOptions.none());

    assertThat(resp.statusCode()).isZero();
    assertThat(resp.headers().size()).isZero();
    assertThat(resp.requestId()).isNull();
    assertThat(resp.idempotentReplayed()).isFalse();
    assertThat(resp.fallbackCause())
        .isInstanceOf(ConnectionException.class)
        .isNotInstanceOf(RequestTimeoutException.class);
    CheckResponse r = resp.value();
    assertThat(r.policyVersion()).isEqualTo("sdk_fallback");
    assertThat(r.authorizationId()).isEqualTo(a.authorizationId());
    CheckResult email = r.results().get("email.send");
    assertThat(email.decision()).isEqualTo(Decision.DENY);
    assertThat(email.reason()).isEqualTo(Reason.FALLBACK_CLOSED_UNREACHABLE);
    assertThat(email.fallback()).isTrue();
    assertThat(email.fallbackMode()).isEqualTo(FallbackMode.FAIL_CLOSED);
    assertThat(email.receipt()).isNull();
    assertThat(email.isAllowed()).isFalse();
    // the real service has no receipt of that decision
    assertThat(it.verifyChain(a.authorizationId())).hasSize(1);

    // with fallback disabled the failure is thrown
    assertThatThrownBy(
            () ->
                unreachable
                    .newBuilder()
                    .fallback(FallbackPolicy.disabled())
                    .build()
                    .check(CheckParams.of(a.authorizationId(), "email.send")))
        .isInstanceOf(ConnectionException.class);
  }

  @Test
  void failOpenPerScopeAllowsOnlyThoseScopesWithFallbackMarkers() throws IOException {
    AgentAuthClient unreachable =
        it.clientBuilder()
            .baseUrl("http://127.0.0.1:" + closedPort())
            .maxRetries(0) // the default retries are covered above; keep this one fast
            .fallback(FallbackPolicy.failClosed().withFailOpen("docs.search", "weather.read"))
            .build();

    CheckResponse r =
        unreachable.check(CheckParams.of("authz_1", "email.send", "docs.search", "weather.read"));

    assertThat(r.policyVersion()).isEqualTo(FallbackPolicy.POLICY_VERSION);
    assertThat(r.results().keySet()).containsExactly("email.send", "docs.search", "weather.read");
    CheckResult email = r.results().get("email.send");
    assertThat(email.decision()).isEqualTo(Decision.DENY);
    assertThat(email.reason()).isEqualTo(Reason.FALLBACK_CLOSED_UNREACHABLE);
    assertThat(email.fallbackMode()).isEqualTo(FallbackMode.FAIL_CLOSED);
    for (String scope : List.of("docs.search", "weather.read")) {
      CheckResult open = r.results().get(scope);
      assertThat(open.isAllowed()).isTrue();
      assertThat(open.reason()).isEqualTo(Reason.FALLBACK_OPEN_UNREACHABLE);
      assertThat(open.fallback()).isTrue();
      assertThat(open.fallbackMode()).isEqualTo(FallbackMode.FAIL_OPEN);
      assertThat(open.receipt()).isNull();
    }

    CheckResponse inverse =
        unreachable
            .newBuilder()
            .fallback(FallbackPolicy.failOpen().withFailClosed("pay.send"))
            .build()
            .check(CheckParams.of("authz_1", "pay.send", "docs.search"));
    assertThat(inverse.results().get("pay.send").reason())
        .isEqualTo(Reason.FALLBACK_CLOSED_UNREACHABLE);
    assertThat(inverse.results().get("docs.search").reason())
        .isEqualTo(Reason.FALLBACK_OPEN_UNREACHABLE);
  }

  @Test
  void aServiceThatNeverAnswersGivesATimeoutFallback() throws Exception {
    // a socket-level black hole: accepts connections and never answers
    List<Socket> held = new CopyOnWriteArrayList<>();
    try (ServerSocket blackHole = new ServerSocket(0)) {
      Thread acceptor =
          new Thread(
              () -> {
                try {
                  while (true) {
                    held.add(blackHole.accept());
                  }
                } catch (IOException closed) {
                  // the test is over
                }
              },
              "black-hole");
      acceptor.setDaemon(true);
      acceptor.start();
      AgentAuthClient slow =
          it.clientBuilder()
              .baseUrl("http://127.0.0.1:" + blackHole.getLocalPort())
              .checkTimeout(Duration.ofMillis(300))
              .fallback(FallbackPolicy.failClosed().withFailOpen("docs.search"))
              .build();

      long started = System.nanoTime();
      ApiResponse<CheckResponse> resp =
          slow.checkWithResponse(
              CheckParams.of("authz_1", "email.send", "docs.search"), RequestOptions.none());
      Duration took = Duration.ofNanos(System.nanoTime() - started);

      assertThat(took).isLessThan(Duration.ofSeconds(3));
      assertThat(resp.fallbackCause()).isInstanceOf(RequestTimeoutException.class);
      assertThat(resp.value().results().get("email.send").reason())
          .isEqualTo(Reason.FALLBACK_CLOSED_TIMEOUT);
      assertThat(resp.value().results().get("docs.search").reason())
          .isEqualTo(Reason.FALLBACK_OPEN_TIMEOUT);
      assertThat(held).isNotEmpty();
    } finally {
      for (Socket s : held) {
        s.close();
      }
    }
  }
}
