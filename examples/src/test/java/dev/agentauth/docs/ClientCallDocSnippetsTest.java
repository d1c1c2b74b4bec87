package dev.agentauth.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.ApiException;
import dev.agentauth.client.ApiResponse;
import dev.agentauth.client.AuthenticationException;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.client.CheckParams;
import dev.agentauth.client.ConflictException;
import dev.agentauth.client.ConnectionException;
import dev.agentauth.client.FallbackPolicy;
import dev.agentauth.client.GoneException;
import dev.agentauth.client.RequestOptions;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.model.Authorization;
import dev.agentauth.model.AuthorizationStatus;
import dev.agentauth.model.CheckResponse;
import dev.agentauth.model.CheckResult;
import dev.agentauth.model.Decision;
import dev.agentauth.model.FallbackMode;
import dev.agentauth.model.Reason;
import dev.agentauth.model.SignedReceipt;
import dev.agentauth.server.AgentAuthServer;
import dev.agentauth.server.TestClock;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Java of docs/client.md from "Async" to "Testing your code", run against one embedded server
 * (the testing snippet starts its own); each region is the twin of a fence (see {@link
 * DocSnippetsTest}).
 */
class ClientCallDocSnippetsTest {
  private static DocService service;

  @BeforeAll
  static void start() {
    service = new DocService();
  }

  @AfterAll
  static void stop() {
    service.close();
  }

  // ---- names the reader supplies -------------------------------------------------------------

  /** A logger with SLF4J's {@code {}} placeholders that keeps what it was given. */
  static final class Log {
    final List<String> lines = new ArrayList<>();

    void info(String format, Object... args) {
      lines.add("INFO " + format(format, args));
    }

    void warn(String format, Object... args) {
      lines.add("WARN " + format(format, args));
    }

    private static String format(String format, Object... args) {
      StringBuilder out = new StringBuilder();
      int from = 0;
      for (Object arg : args) {
        int at = format.indexOf("{}", from);
        out.append(format, from, at).append(arg);
        from = at + 2;
      }
      return out.append(format.substring(from)).toString();
    }
  }

  /** Where the reader keeps signed receipts. */
  static final class Archive {
    final CompletableFuture<String> stored = new CompletableFuture<>();

    void store(String receipt) {
      stored.complete(receipt);
    }
  }

  private final Log log = new Log();
  private final Archive archive = new Archive();
  private final CompletableFuture<Void> emailSent = new CompletableFuture<>();

  private CompletableFuture<Void> sendEmailAsync() {
    emailSent.complete(null);
    return emailSent;
  }

  private static AuthorizationCreateParams.InlineBuilder grant(String userId) {
    return AuthorizationCreateParams.inline()
        .userId(userId)
        .agentId("support-bot")
        .expiresAt(Instant.now().plus(Duration.ofDays(1)));
  }

  /** A loopback URL nothing listens on. */
  private static String deadUrl() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return "http://127.0.0.1:" + socket.getLocalPort();
    }
  }

  // ---- Async ----------------------------------------------------------------------------------

  @Test
  void asyncCallsCompleteFutures() throws Exception {
    AgentAuthClient client = service.newWorkspace();
    String authId =
        client
            .authorizations()
            .create(grant("u_async").scope("email.send").build())
            .authorizationId();
    String receiptId =
        client
            .check(CheckParams.of(authId, "email.send"))
            .results()
            .get("email.send")
            .receipt()
            .receiptId();
    // spotless:off
    // @start region="async"
    client.async().check(CheckParams.of(authId, "email.send"))
        .thenCompose(r -> r.results().get("email.send").isAllowed()
            ? sendEmailAsync()
            : CompletableFuture.completedFuture(null));

    client.async().receipts().awaitSignedJson(receiptId, Duration.ofSeconds(10))
        .thenAccept(archive::store);   // the signed receipt as served: what an auditor verifies
    // @end region="async"
    // spotless:on

    emailSent.get(10, TimeUnit.SECONDS);
    SignedReceipt signed =
        AgentAuthJson.newObjectMapper()
            .readValue(archive.stored.get(10, TimeUnit.SECONDS), SignedReceipt.class);
    assertThat(signed.receiptId()).isEqualTo(receiptId);
    assertThat(signed.decision()).isEqualTo(Decision.ALLOW);
  }

  // ---- Per-call options -----------------------------------------------------------------------

  @Test
  void requestOptionsApplyToOneCall() {
    AgentAuthClient client = service.newWorkspace();
    String traceId = "trace-1";
    AuthorizationCreateParams params = grant("u_opts").scope("email.send").build();
    String existing =
        client
            .authorizations()
            .create(grant("u_opts").scope("email.send").build())
            .authorizationId();
    CheckParams checkParams = CheckParams.of(existing, "email.send");
    // spotless:off
    // @start region="request-options"
    RequestOptions opts = RequestOptions.builder()
        .timeout(Duration.ofSeconds(3))           // whole call, retries included
        .maxRetries(0)
        .idempotencyKey("order-4711-grant")       // POST/DELETE: your own key, for this call only
        .header("X-Trace-Id", traceId)
        .build();

    Authorization grant = client.authorizations().create(params, opts);
    CheckResponse r = client.check(checkParams, RequestOptions.builder()
        .timeout(Duration.ofMillis(300))          // replaces the check timeout
        .build());
    // @end region="request-options"
    // spotless:on

    assertThat(r.results().get("email.send").isAllowed()).isTrue();
    // The same key and body: the stored first answer, not a second authorization.
    assertThat(client.authorizations().create(params, opts).authorizationId())
        .isEqualTo(grant.authorizationId());
    // The same key with another request: 409 idempotency_conflict.
    assertThatThrownBy(() -> client.check(checkParams, opts))
        .isInstanceOfSatisfying(
            ConflictException.class, e -> assertThat(e.code()).isEqualTo("idempotency_conflict"));
  }

  /** The with-response snippet, called twice with the same idempotency key. */
  private void decide(AgentAuthClient client, CheckParams params, RequestOptions opts) {
    // spotless:off
    // @start region="with-response"
    ApiResponse<CheckResponse> resp = client.checkWithResponse(params, opts);
    log.info("decided by request {}", resp.requestId());
    if (resp.idempotentReplayed()) {          // a repeat: the answer stored for opts's key
      log.info("same answer as the first call with key {}", opts.idempotencyKey());
    }
    // @end region="with-response"
    // spotless:on
    assertThat(resp.value().results().get("email.send").isAllowed()).isTrue();
  }

  @Test
  void withResponseHasTheRequestIdAndTheReplayFlag() {
    AgentAuthClient client = service.newWorkspace();
    String authId =
        client
            .authorizations()
            .create(grant("u_resp").scope("email.send").build())
            .authorizationId();
    CheckParams params = CheckParams.of(authId, "email.send");
    RequestOptions opts = RequestOptions.builder().idempotencyKey("check-4711").build();

    decide(client, params, opts);
    decide(client, params, opts);

    assertThat(log.lines).hasSize(3);
    assertThat(log.lines.get(0)).matches("INFO decided by request \\S+").doesNotEndWith("null");
    assertThat(log.lines.get(1)).startsWith("INFO decided by request ");
    assertThat(log.lines.get(2))
        .isEqualTo("INFO same answer as the first call with key check-4711");
  }

  // ---- Errors ---------------------------------------------------------------------------------

  /** The Errors snippet. */
  private void revoke(AgentAuthClient client, String authId) {
    // spotless:off
    // @start region="errors"
    try {
      client.authorizations().revoke(authId);
    } catch (ConflictException e) {
      // e.code() is "already_revoked": nothing to do
    } catch (ApiException e) {
      log.warn("revoke failed: HTTP {} {} (request {})", e.statusCode(), e.code(), e.requestId());
    } catch (ConnectionException e) {
      // no answer, even after the retries: try again later (a 409 then means it had worked)
      log.warn("revoke unconfirmed: {}", e.getMessage());
    }
    // @end region="errors"
    // spotless:on
  }

  @Test
  void errorsAreTypedExceptions() throws IOException {
    AgentAuthClient client = service.newWorkspace();
    String authId =
        client
            .authorizations()
            .create(grant("u_err").scope("email.send").build())
            .authorizationId();

    revoke(client, authId);
    assertThat(client.authorizations().get(authId).status()).isEqualTo(AuthorizationStatus.REVOKED);
    revoke(client, authId); // already_revoked: ConflictException, nothing logged
    assertThat(log.lines).isEmpty();

    revoke(client, "auth_unknown");
    assertThat(log.lines).hasSize(1);
    assertThat(log.lines.get(0))
        .startsWith("WARN revoke failed: HTTP 404 not_found (request ")
        .doesNotContain("request null");

    revoke(client.newBuilder().baseUrl(deadUrl()).build(), authId);
    assertThat(log.lines).hasSize(2);
    assertThat(log.lines.get(1))
        .startsWith("WARN revoke unconfirmed: ")
        .contains("DELETE /v1/authorizations/{id}")
        .doesNotContain(authId);
  }

  // ---- Fallback -------------------------------------------------------------------------------

  /** The Fallback snippet. */
  private static AgentAuthClient clientWithFallback(String url, String key) {
    // spotless:off
    // @start region="fallback"
    AgentAuthClient client = AgentAuthClient.builder()
        .baseUrl(url).apiKey(key)
        .fallback(FallbackPolicy.failClosed()                 // deny everything by default ...
            .withFailOpen("docs.search", "weather.read"))     // ... except these harmless scopes
        .build();
    // @end region="fallback"
    // spotless:on
    return client;
  }

  @Test
  void fallbackDecidesWhenTheServiceCannotAnswer() throws IOException {
    String key = service.server.apiKey();
    AgentAuthClient client = clientWithFallback(deadUrl(), key);

    ApiResponse<CheckResponse> resp =
        client.checkWithResponse(
            CheckParams.of("auth_any", "docs.search", "email.send"), RequestOptions.none());
    assertThat(resp.statusCode()).isZero();
    assertThat(resp.fallbackCause()).isInstanceOf(ConnectionException.class);
    assertThat(resp.value().policyVersion()).isEqualTo(FallbackPolicy.POLICY_VERSION);
    CheckResult search = resp.value().results().get("docs.search");
    assertThat(search.decision()).isEqualTo(Decision.ALLOW);
    assertThat(search.reason()).isEqualTo(Reason.FALLBACK_OPEN_UNREACHABLE);
    assertThat(search.fallback()).isTrue();
    assertThat(search.fallbackMode()).isEqualTo(FallbackMode.FAIL_OPEN);
    assertThat(search.receipt()).isNull();
    CheckResult email = resp.value().results().get("email.send");
    assertThat(email.decision()).isEqualTo(Decision.DENY);
    assertThat(email.reason()).isEqualTo(Reason.FALLBACK_CLOSED_UNREACHABLE);

    // A 4xx never falls back: it is thrown.
    AgentAuthClient wrongKey = clientWithFallback(service.server.baseUrl(), "sk_" + "B".repeat(43));
    assertThatThrownBy(() -> wrongKey.check(CheckParams.of("auth_any", "docs.search")))
        .isInstanceOf(AuthenticationException.class);
  }

  // ---- Testing your code ----------------------------------------------------------------------

  @Test
  void testsRunTheServerOnATestClock() {
    // spotless:off
    // @start region="testing"
    TestClock clock = TestClock.startingNow();
    try (AgentAuthServer server = AgentAuthServer.builder().clock(clock).build().start()) {
      AgentAuthClient client = AgentAuthClient.builder()
          .baseUrl(server.baseUrl()).apiKey(server.apiKey()).maxRetries(0).build();
      Authorization grant = client.authorizations().create(AuthorizationCreateParams.inline()
          .userId("u_test").agentId("support-bot")
          .scope("email.send").requiresConfirmFor("email.send")
          .expiresAt(clock.instant().plus(Duration.ofDays(1)))   // the server's time, not now()
          .build());
      CheckResult asked = client.check(CheckParams.of(grant.authorizationId(), "email.send"))
          .results().get("email.send");                           // confirm, with a nonce
      clock.advance(Duration.ofMinutes(6));                       // nonces live 5 minutes
      assertThatThrownBy(() -> client.confirmations().approve(asked.confirmNonce()))
          .isInstanceOf(GoneException.class);
    }
    // @end region="testing"
    // spotless:on
  }
}
