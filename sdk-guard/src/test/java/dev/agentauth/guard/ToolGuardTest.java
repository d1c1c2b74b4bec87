package dev.agentauth.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.BadRequestException;
import dev.agentauth.model.Reason;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The framework-neutral sequence, sync and async alike, against a MockWebServer standing in for the
 * service.
 */
class ToolGuardTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String RECEIPT =
      "{\"status\":\"pending\",\"receipt_id\":\"01JDQ0000000000000000000AA\","
          + "\"ready_at_estimate\":\"2026-11-22T10:00:00.300Z\","
          + "\"url\":\"http://localhost/v1/receipts/01JDQ0000000000000000000AA\"}";

  private MockWebServer server;
  private AgentAuthClient client;
  private ExecutorService continuation;
  private final List<GuardDecision> decisions = new CopyOnWriteArrayList<>();
  private final List<String> listenerThreads = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws IOException {
    server = new MockWebServer();
    server.start();
    client =
        AgentAuthClient.builder()
            .baseUrl(server.url("/"))
            .apiKey("sk_test_core")
            .maxRetries(0)
            .okHttpClient(new OkHttpClient.Builder().retryOnConnectionFailure(false).build())
            .build();
    continuation = Executors.newSingleThreadExecutor(r -> new Thread(r, "continuation"));
  }

  @AfterEach
  void stop() {
    server.close();
    continuation.shutdownNow();
  }

  private ToolGuard.Builder guard() {
    return ToolGuard.builder(client)
        .authorizationResolver((user, tool, args) -> Optional.of("auth_1"))
        .listener(
            d -> {
              decisions.add(d);
              listenerThreads.add(Thread.currentThread().getName());
            });
  }

  private GuardOutcome decide(ToolGuard g, boolean async, String user, Map<String, Object> args) {
    GuardedTool tool = g.tool("delete_note", Set.of("id"));
    GuardCall call = new GuardCall("delete_note", args, null);
    return async
        ? g.decideAsync(tool, user, call, continuation).orTimeout(5, TimeUnit.SECONDS).join()
        : g.decide(tool, user, call);
  }

  private static MockResponse result(String resultJson) {
    return new MockResponse.Builder()
        .code(200)
        .addHeader("Content-Type", "application/json")
        .body(
            """
            {"authorization_id":"auth_1","user_id":"u_1","agent_id":"bot",
             "authorization_expires_at":"2026-12-01T00:00:00.000Z","policy_version":"1",
             "results":{"delete_note":%s}}
            """
                .formatted(resultJson))
        .build();
  }

  private static MockResponse problem(int code, String problemCode) {
    return new MockResponse.Builder()
        .code(code)
        .addHeader("Content-Type", "application/problem+json")
        .body(
            "{\"type\":\"/errors/%s\",\"title\":\"t\",\"status\":%d,\"code\":\"%s\",\"request_id\":\"r\"}"
                .formatted(problemCode, code, problemCode))
        .build();
  }

  private JsonNode takeCheck() throws Exception {
    RecordedRequest r = server.takeRequest(5, TimeUnit.SECONDS);
    assertThat(r).as("a check request").isNotNull();
    return JSON.readTree(r.getBody().string(StandardCharsets.UTF_8));
  }

  @ParameterizedTest(name = "async={0}")
  @ValueSource(booleans = {false, true})
  void anAllowRunsAndTheCheckNamesScopeAndDigestResource(boolean async) throws Exception {
    server.enqueue(
        result(
            "{\"decision\":\"allow\",\"reason\":\"authorization_granted_scope_active\",\"receipt\":"
                + RECEIPT
                + "}"));
    ToolGuard g = guard().build();

    GuardOutcome o = decide(g, async, "u_1", Map.of("id", "n1"));

    assertThat(o.allowed()).isTrue();
    assertThat(o.body()).isNull();
    assertThat(o.text()).isNull();
    JsonNode check = takeCheck();
    assertThat(check.path("authorization_id").asText()).isEqualTo("auth_1");
    assertThat(check.path("scopes").toString()).isEqualTo("[\"delete_note\"]");
    assertThat(check.path("resource").asText())
        .isEqualTo(
            ResourceBinding.argumentsDigest()
                .resourceFor(new GuardCall("delete_note", Map.of("id", "n1"), null)))
        .startsWith("delete_note:");
    assertThat(decisions).singleElement().satisfies(d -> assertThat(d.allowed()).isTrue());
    assertThat(decisions.get(0).receiptId()).isEqualTo("01JDQ0000000000000000000AA");
    if (async) {
      assertThat(listenerThreads).containsExactly("continuation");
    }
  }

  @ParameterizedTest(name = "async={0}")
  @ValueSource(booleans = {false, true})
  void aDenyReturnsTheDecisionObjectWithAMessage(boolean async) {
    server.enqueue(
        result(
            "{\"decision\":\"deny\",\"reason\":\"scope_not_authorized\",\"receipt\":"
                + RECEIPT
                + "}"));

    GuardOutcome o = decide(guard().build(), async, "u_1", Map.of("id", "n1"));

    assertThat(o.allowed()).isFalse();
    assertThat(o.body())
        .containsEntry("decision", "deny")
        .containsEntry("reason", "scope_not_authorized")
        .containsEntry("receipt_id", "01JDQ0000000000000000000AA")
        .containsEntry(
            "message",
            "The user's authorization does not include delete_note; calling again will not help,"
                + " so tell the user they must grant it first.");
    assertThat(o.text()).startsWith("{\"decision\":\"deny\",\"reason\":\"scope_not_authorized\"");
  }

  @ParameterizedTest(name = "async={0}")
  @ValueSource(booleans = {false, true})
  void localDenialsMakeNoServiceCall(boolean async) {
    ToolGuard g =
        guard()
            .authorizationResolver(
                (user, tool, args) -> "u_2".equals(user) ? Optional.empty() : Optional.of("a"))
            .resourceBinding("delete_note", ResourceBinding.template("notes:{id}"))
            .build();

    GuardOutcome noUser = decide(g, async, " ", Map.of("id", "n1"));
    GuardOutcome noGrant = decide(g, async, "u_2", Map.of("id", "n1"));
    GuardOutcome badArgument = decide(g, async, "u_1", Map.of("id", List.of()));

    assertThat(noUser.body())
        .containsEntry("reason", "missing_user_id")
        .containsEntry("local", true);
    assertThat(noGrant.body()).containsEntry("reason", "authorization_not_found");
    assertThat(badArgument.body())
        .containsEntry("reason", ResourceBindingException.REASON)
        .containsEntry("local", true);
    assertThat(decisions)
        .extracting(GuardDecision::reason)
        .containsExactly(
            Reason.MISSING_USER_ID,
            Reason.AUTHORIZATION_NOT_FOUND,
            ResourceBindingException.REASON_VALUE);
    assertThat(decisions).allSatisfy(d -> assertThat(d.local()).isTrue());
    assertThat(server.getRequestCount()).isZero();
  }

  @ParameterizedTest(name = "async={0}")
  @ValueSource(booleans = {false, true})
  void aRefusedGuardKeyIsServiceUnavailable(boolean async) {
    server.enqueue(problem(401, "unauthenticated"));

    GuardOutcome o = decide(guard().build(), async, "u_1", Map.of("id", "n1"));

    assertThat(o.body())
        .containsEntry("decision", "deny")
        .containsEntry("reason", "service_unavailable");
    assertThat(decisions.get(0).reason()).isEqualTo(GuardResults.SERVICE_UNAVAILABLE);
  }

  @ParameterizedTest(name = "async={0}")
  @ValueSource(booleans = {false, true})
  void aServiceDownFailsClosedWithTheFallbackMarkers(boolean async) {
    server.enqueue(problem(503, "unavailable"));

    GuardOutcome o = decide(guard().build(), async, "u_1", Map.of("id", "n1"));

    assertThat(o.allowed()).isFalse();
    assertThat(o.body())
        .containsEntry("reason", "fallback_closed_server_error")
        .containsEntry("fallback", true)
        .containsEntry("fallback_mode", "fail_closed");
    assertThat(decisions.get(0).fallback()).isTrue();
  }

  @Test
  void aRejectedInputThrowsInBothForms() {
    server.enqueue(problem(400, "invalid_request"));
    server.enqueue(problem(400, "invalid_request"));
    ToolGuard g = guard().build();

    assertThatThrownBy(() -> decide(g, false, "u_1", Map.of("id", "n1")))
        .isInstanceOf(BadRequestException.class);
    CompletableFuture<GuardOutcome> async =
        g.decideAsync(
            g.tool("delete_note", null),
            "u_1",
            new GuardCall("delete_note", Map.of("id", "n1"), null),
            continuation);
    assertThatThrownBy(() -> async.get(5, TimeUnit.SECONDS))
        .hasCauseInstanceOf(BadRequestException.class);
  }

  @Test
  void aConfirmIsRecheckedWithTheSameParametersAndCanBeDeclined() throws Exception {
    String confirm =
        """
        {"decision":"confirm","reason":"scope_requires_user_confirmation","receipt":%s,
         "confirm_nonce":"nonce_1","confirm_expires_at":"2026-11-22T10:05:00.000Z"}
        """
            .formatted(RECEIPT);
    server.enqueue(result(confirm));
    server.enqueue(
        result(
            "{\"decision\":\"allow\",\"reason\":\"authorization_granted_scope_active\",\"receipt\":"
                + RECEIPT
                + "}"));
    ToolGuard g = guard().build();

    GuardOutcome first = decide(g, false, "u_1", Map.of("id", "n1"));
    assertThat(first.confirmable()).isTrue();
    assertThat(first.body()).containsEntry("confirm_nonce", "nonce_1");
    GuardOutcome again = g.recheckAsync(first, continuation).get(5, TimeUnit.SECONDS);
    Map<String, Object> declined = g.declined(first);

    assertThat(again.allowed()).isTrue();
    assertThat(takeCheck()).isEqualTo(takeCheck());
    assertThat(declined)
        .containsEntry("reason", "confirmation_declined")
        .containsEntry("confirm_nonce", "nonce_1");
    assertThat(decisions)
        .extracting(d -> d.reason().value())
        .containsExactly(
            "scope_requires_user_confirmation",
            "authorization_granted_scope_active",
            "confirmation_declined");
    assertThatThrownBy(() -> g.declined(again)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void toolsArePreparedOnce() {
    ToolGuard g =
        guard()
            .scopeMapper(name -> name.startsWith("bad") ? ".bad" : "agent." + name)
            .resourceBinding("delete_note", ResourceBinding.template("notes:{id}"))
            .build();

    assertThat(g.tool("delete_note", Set.of("id")).scope()).isEqualTo("agent.delete_note");
    assertThatThrownBy(() -> g.tool("bad_tool", Set.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("to map to a scope name");
    assertThatThrownBy(() -> g.tool("delete_note", Set.of("path")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"id\"")
        .hasMessageContaining("properties [path]");
    assertThat(g.tool("delete_note", null).binding().placeholders()).containsExactly("id");
    // A name too long for "<tool>:" + digest (the scope, mapped, is short).
    ToolGuard shortScopes = guard().scopeMapper(name -> "long_tool").build();
    assertThatThrownBy(
            () -> shortScopes.tool("x".repeat(ResourceBinding.MAX_DIGEST_TOOL_NAME + 1), null))
        .hasMessageContaining("resourceBinding(...) of its own");
    assertThat(shortScopes.tool("x".repeat(ResourceBinding.MAX_DIGEST_TOOL_NAME), null).scope())
        .isEqualTo("long_tool");
  }

  @Test
  void aFailingListenerDoesNotChangeTheOutcome() {
    ToolGuard g =
        ToolGuard.builder(client)
            .authorizationResolver((u, t, a) -> Optional.empty())
            .listener(
                d -> {
                  throw new IllegalStateException("listener broke");
                })
            .build();

    GuardOutcome o = decide(g, false, "u_1", Map.of("id", "n1"));

    assertThat(o.body()).containsEntry("reason", "authorization_not_found");
  }
}
