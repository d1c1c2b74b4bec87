package dev.agentauth.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthenticationException;
import dev.agentauth.client.FallbackPolicy;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Which authorization the default resolver picks, what it asks the service, and its cache. */
class ActiveGrantResolverTest {
  private MockWebServer web;
  private AgentAuthClient client;
  private final ToolScopes scopes = new ToolScopes(Map.of("send_email", "email.send"), "");

  @BeforeEach
  void start() throws IOException {
    web = new MockWebServer();
    web.start();
    client =
        AgentAuthClient.builder()
            .baseUrl(web.url("/").toString())
            .apiKey("sk_test")
            .maxRetries(0)
            .build();
  }

  @AfterEach
  void stop() {
    web.close();
  }

  private static String authorization(String id, String created, String... scopes) {
    return grantTo("bot", id, created, scopes);
  }

  private static String grantTo(String agent, String id, String created, String... scopes) {
    StringBuilder s = new StringBuilder();
    for (String scope : scopes) {
      s.append(s.length() == 0 ? "" : ",").append("{\"name\":\"").append(scope).append("\"}");
    }
    return "{\"authorization_id\":\""
        + id
        + "\",\"user_id\":\"alice\",\"agent_id\":\""
        + agent
        + "\",\"bundle_id\":null,\"scopes\":["
        + s
        + "],\"requires_confirm_for\":[],\"requires_escalation_for\":[],\"escalation_targets\":{},"
        + "\"expires_at\":\"2099-01-01T00:00:00.000Z\",\"budget_limit_micros\":null,"
        + "\"budget_spent_micros\":0,\"created_at\":\""
        + created
        + "\",\"revoked_at\":null,\"metadata\":{},\"status\":\"active\"}";
  }

  private void page(String... authorizations) {
    web.enqueue(
        new MockResponse.Builder()
            .code(200)
            .addHeader("Content-Type", "application/json")
            .body(
                "{\"authorizations\":["
                    + String.join(",", authorizations)
                    + "],\"has_more\":false,\"next_cursor\":null}")
            .build());
  }

  @Test
  void picksTheNewestAuthorizationGrantingTheScopeAndAsksForTheUsersActiveOnes() throws Exception {
    page(
        authorization("auth_old", "2026-01-01T00:00:00.000Z", "email.send"),
        authorization("auth_new", "2026-02-01T00:00:00.000Z", "email.send"),
        authorization("auth_newest", "2026-03-01T00:00:00.000Z", "notes.read"));
    ActiveGrantResolver resolver = new ActiveGrantResolver(client, "bot", scopes, Duration.ZERO);

    assertThat(resolver.resolve("alice", "send_email", Map.of())).contains("auth_new");
    RecordedRequest r = web.takeRequest();
    assertThat(r.getUrl().queryParameter("user_id")).isEqualTo("alice");
    assertThat(r.getUrl().queryParameter("agent_id")).isEqualTo("bot");
    assertThat(r.getUrl().queryParameter("status")).isEqualTo("active");
    assertThat(r.getUrl().encodedPath()).isEqualTo("/v1/authorizations");
  }

  @Test
  void aGrantTheUserGaveAnotherAgentIsNeverUsedEvenIfTheServiceListsIt() throws Exception {
    // alice granted email.send only to payments_bot; a listing that ignores agent_id returns it
    page(
        grantTo("notes_bot", "auth_notes", "2026-01-01T00:00:00.000Z", "notes.read"),
        grantTo("payments_bot", "auth_payments", "2026-02-01T00:00:00.000Z", "email.send"));
    ActiveGrantResolver resolver =
        new ActiveGrantResolver(client, "notes_bot", scopes, Duration.ZERO);

    assertThat(resolver.resolve("alice", "send_email", Map.of())).contains("auth_notes");
    assertThat(web.takeRequest().getUrl().queryParameter("agent_id")).isEqualTo("notes_bot");

    page(grantTo("payments_bot", "auth_payments", "2026-02-01T00:00:00.000Z", "email.send"));
    assertThat(resolver.resolve("alice", "send_email", Map.of())).isEmpty();
  }

  @Test
  void anAgentIdIsRequired() {
    assertThatThrownBy(() -> new ActiveGrantResolver(client, " ", scopes, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("agent id");
    assertThatThrownBy(() -> new ActiveGrantResolver(client, null, scopes, Duration.ZERO))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void withoutOneGrantingTheScopeTheNewestIsCheckedSoThatTheServiceRecordsTheDenial() {
    page(
        authorization("auth_a", "2026-01-01T00:00:00.000Z", "notes.read"),
        authorization("auth_b", "2026-02-01T00:00:00.000Z", "notes.read"));
    ActiveGrantResolver resolver = new ActiveGrantResolver(client, "bot", scopes, Duration.ZERO);

    assertThat(resolver.resolve("alice", "send_email", Map.of())).contains("auth_b");
  }

  @Test
  void aUserWithoutActiveAuthorizationsHasNone() {
    page();
    page();
    ActiveGrantResolver resolver = new ActiveGrantResolver(client, "bot", scopes, Duration.ZERO);

    assertThat(resolver.resolve("carol", "send_email", Map.of())).isEmpty();
    assertThat(
            resolver.async().resolve("carol", "send_email", Map.of()).toCompletableFuture().join())
        .isEqualTo(Optional.empty());
  }

  @Test
  void aUsersListIsCachedForTheTtlPerUser() throws Exception {
    page(authorization("auth_a", "2026-01-01T00:00:00.000Z", "email.send"));
    page(authorization("auth_b", "2026-01-01T00:00:00.000Z", "email.send"));
    ActiveGrantResolver resolver =
        new ActiveGrantResolver(client, "bot", scopes, Duration.ofMinutes(5));

    assertThat(resolver.resolve("alice", "send_email", Map.of())).contains("auth_a");
    assertThat(resolver.resolve("alice", "notes", Map.of())).contains("auth_a");
    assertThat(resolver.resolve("bob", "send_email", Map.of())).contains("auth_b");
    assertThat(web.getRequestCount()).isEqualTo(2);
  }

  @Test
  void anOutageLeavesTheDecisionToTheFallbackPolicyAndIsNotCached() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    AgentAuthClient down =
        AgentAuthClient.builder()
            .baseUrl("http://127.0.0.1:" + port)
            .apiKey("sk_test")
            .maxRetries(0)
            .fallback(FallbackPolicy.failClosed())
            .build();
    ActiveGrantResolver resolver =
        new ActiveGrantResolver(down, "bot", scopes, Duration.ofMinutes(5));

    assertThat(resolver.resolve("alice", "send_email", Map.of()))
        .contains(ActiveGrantResolver.UNRESOLVED);
    web.enqueue(new MockResponse.Builder().code(503).build());
    ActiveGrantResolver flaky =
        new ActiveGrantResolver(client, "bot", scopes, Duration.ofMinutes(5));
    assertThat(flaky.resolve("alice", "send_email", Map.of()))
        .contains(ActiveGrantResolver.UNRESOLVED);
    page(authorization("auth_a", "2026-01-01T00:00:00.000Z", "email.send"));
    assertThat(flaky.resolve("alice", "send_email", Map.of())).contains("auth_a");
  }

  @Test
  void aRejectedApiKeyIsAnErrorNotAFallback() {
    web.enqueue(
        new MockResponse.Builder()
            .code(401)
            .addHeader("Content-Type", "application/problem+json")
            .body(
                "{\"type\":\"about:blank\",\"title\":\"Unauthorized\",\"status\":401,"
                    + "\"code\":\"unauthorized\",\"detail\":\"bad key\"}")
            .build());
    ActiveGrantResolver resolver = new ActiveGrantResolver(client, "bot", scopes, Duration.ZERO);

    assertThatThrownBy(() -> resolver.resolve("alice", "send_email", Map.of()))
        .isInstanceOf(AuthenticationException.class);
  }
}
