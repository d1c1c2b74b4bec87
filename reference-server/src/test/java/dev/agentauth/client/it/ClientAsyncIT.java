package dev.agentauth.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.client.AgentAuthAsyncClient;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.ApiResponse;
import dev.agentauth.client.BadRequestException;
import dev.agentauth.client.CheckParams;
import dev.agentauth.client.ConflictException;
import dev.agentauth.client.ConnectionException;
import dev.agentauth.client.EscalationResolveParams;
import dev.agentauth.client.FallbackPolicy;
import dev.agentauth.client.NotFoundException;
import dev.agentauth.client.ReceiptListParams;
import dev.agentauth.client.RequestOptions;
import dev.agentauth.model.Authorization;
import dev.agentauth.model.AuthorizationStatus;
import dev.agentauth.model.CheckResponse;
import dev.agentauth.model.CheckResult;
import dev.agentauth.model.Decision;
import dev.agentauth.model.Reason;
import dev.agentauth.model.ReceiptPage;
import dev.agentauth.model.RevokeAuthorizationResponse;
import dev.agentauth.model.ScopeConstraints;
import dev.agentauth.model.ScopeEntry;
import dev.agentauth.model.SignedReceipt;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The asynchronous twins ({@code client.async()}) against the reference server. */
class ClientAsyncIT {
  private ItServer it;
  private AgentAuthAsyncClient async;

  @BeforeEach
  void start() {
    it = ItServer.start();
    async = it.client.async();
  }

  @AfterEach
  void stop() {
    it.close();
  }

  private static <T> T join(CompletableFuture<T> f) throws Exception {
    return f.get(15, TimeUnit.SECONDS);
  }

  /** The exception a failed future holds, unwrapped from {@link CompletionException}. */
  private static Throwable failure(CompletableFuture<?> f) {
    try {
      f.get(15, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      return e.getCause();
    } catch (Exception e) {
      throw new AssertionError("future did not fail in time", e);
    }
    throw new AssertionError("expected the future to fail");
  }

  @Test
  void createCheckAwaitSignedAndRevokeAsynchronously() throws Exception {
    Authorization a =
        join(async.authorizations().create(it.inline("email.send", "crm.read").build()));
    assertThat(a.authorizationId()).isNotBlank();
    SignedReceipt created =
        it.assertVerifies(join(async.receipts().awaitSigned(a.receipt(), ItServer.AWAIT)));
    assertThat(created.decision()).isEqualTo(Decision.AUTHORIZATION_GRANTED);

    // a composed pipeline: check, then await the receipt of the decision
    CompletableFuture<SignedReceipt> pipeline =
        async
            .check(CheckParams.of(a.authorizationId(), "email.send", "pay.send"))
            .thenCompose(
                r -> {
                  assertThat(r.results().get("email.send").isAllowed()).isTrue();
                  assertThat(r.results().get("pay.send").reason())
                      .isEqualTo(Reason.SCOPE_NOT_AUTHORIZED);
                  return async
                      .receipts()
                      .awaitSigned(r.results().get("email.send").receipt(), ItServer.AWAIT);
                });
    SignedReceipt allow = it.assertVerifies(join(pipeline));
    assertThat(allow.decision()).isEqualTo(Decision.ALLOW);
    assertThat(allow.scope()).isEqualTo("email.send");

    ApiResponse<CheckResponse> withResponse =
        join(
            async.checkWithResponse(
                CheckParams.of(a.authorizationId(), "crm.read"), RequestOptions.none()));
    assertThat(withResponse.statusCode()).isEqualTo(200);
    assertThat(withResponse.requestId()).isNotBlank();
    SignedReceipt byId =
        join(
            async
                .receipts()
                .awaitSigned(
                    withResponse.value().results().get("crm.read").receipt().receiptId(),
                    ItServer.AWAIT));
    it.assertVerifies(byId);

    ReceiptPage page =
        join(
            async
                .receipts()
                .list(ReceiptListParams.builder().authorizationId(a.authorizationId()).build()));
    assertThat(page.receipts()).hasSize(4);

    RevokeAuthorizationResponse revoked = join(async.authorizations().revoke(a.authorizationId()));
    it.assertVerifies(join(async.receipts().awaitSigned(revoked.receipt(), ItServer.AWAIT)));
    assertThat(join(async.authorizations().get(a.authorizationId())).status())
        .isEqualTo(AuthorizationStatus.REVOKED);
    assertThat(it.verifyChain(a.authorizationId())).hasSize(5);
  }

  @Test
  void concurrentAsyncChecksRespectMaxPerDay() throws Exception {
    Authorization a =
        join(
            async
                .authorizations()
                .create(
                    it.inline()
                        .scope(new ScopeEntry("email.send", new ScopeConstraints(5L, null, null)))
                        .build()));
    List<CompletableFuture<CheckResponse>> futures = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      futures.add(async.check(CheckParams.of(a.authorizationId(), "email.send")));
    }
    CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(15, TimeUnit.SECONDS);
    List<CheckResult> results =
        futures.stream().map(f -> f.join().results().get("email.send")).toList();
    assertThat(results).filteredOn(CheckResult::isAllowed).hasSize(5);
    assertThat(results)
        .filteredOn(r -> !r.isAllowed())
        .allSatisfy(r -> assertThat(r.reason()).isEqualTo(Reason.RATE_LIMIT_EXCEEDED));
    assertThat(it.verifyChain(a.authorizationId())).hasSize(21);
  }

  @Test
  void failedFuturesHoldTheSameExceptionsAsTheBlockingClient() {
    Throwable notFound = failure(async.authorizations().get("authz_missing"));
    assertThat(notFound).isInstanceOf(NotFoundException.class);
    assertThat(((NotFoundException) notFound).code()).isEqualTo("not_found");
    assertThat(((NotFoundException) notFound).requestId()).isNotBlank();

    Throwable invalid =
        failure(async.authorizations().create(it.inline("email.send", "bad name!").build()));
    assertThat(invalid).isInstanceOf(BadRequestException.class);

    Throwable missingEscalation =
        failure(
            async
                .escalations()
                .resolve("esc_missing", EscalationResolveParams.approve("approver_1")));
    assertThat(missingEscalation).isInstanceOf(NotFoundException.class);

    // exceptionally on the returned future sees the exception itself, not a CompletionException
    Throwable seen = async.authorizations().revoke("authz_missing").handle((v, e) -> e).join();
    assertThat(seen).isInstanceOf(NotFoundException.class);

    Authorization a = it.authorize("email.send");
    it.client.authorizations().revoke(a.authorizationId());
    assertThat(failure(async.authorizations().revoke(a.authorizationId())))
        .isInstanceOf(ConflictException.class);
  }

  @Test
  void asyncCheckFallsBackWhenTheServiceIsUnreachable() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    AgentAuthClient unreachable =
        it.clientBuilder()
            .baseUrl("http://127.0.0.1:" + closedPort)
            .fallback(FallbackPolicy.failClosed().withFailOpen("docs.search"))
            .build();

    ApiResponse<CheckResponse> r =
        join(
            unreachable
                .async()
                .checkWithResponse(
                    CheckParams.of("authz_1", "email.send", "docs.search"), RequestOptions.none()));
    assertThat(r.statusCode()).isZero();
    assertThat(r.fallbackCause()).isNotNull();
    assertThat(r.value().policyVersion()).isEqualTo(FallbackPolicy.POLICY_VERSION);
    assertThat(r.value().results().get("email.send").reason())
        .isEqualTo(Reason.FALLBACK_CLOSED_UNREACHABLE);
    assertThat(r.value().results().get("docs.search").reason())
        .isEqualTo(Reason.FALLBACK_OPEN_UNREACHABLE);

    Throwable thrown =
        failure(
            unreachable
                .newBuilder()
                .fallback(FallbackPolicy.disabled())
                .build()
                .async()
                .check(CheckParams.of("authz_1", "email.send")));
    assertThat(thrown).isInstanceOf(ConnectionException.class);
  }
}
