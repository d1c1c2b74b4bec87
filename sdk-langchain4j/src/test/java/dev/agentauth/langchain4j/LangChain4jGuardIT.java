package dev.agentauth.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.ApiKeyCreateParams;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.client.EscalationResolveParams;
import dev.agentauth.client.FallbackPolicy;
import dev.agentauth.guard.GuardDecision;
import dev.agentauth.guard.ResourceBinding;
import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.model.Decision;
import dev.agentauth.model.FallbackMode;
import dev.agentauth.server.AgentAuthServer;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProviderResult;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * LangChain4j AI services with guarded tools, driven by a scripted model, against the embedded
 * reference server: what runs, what the model reads instead, and what one approval covers.
 */
class LangChain4jGuardIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String USER = "alice";

  private static AgentAuthServer server;
  private static AgentAuthClient admin;
  private static AgentAuthClient agentClient;
  private static final Map<String, String> grants = new ConcurrentHashMap<>();

  private final List<String> ran = new CopyOnWriteArrayList<>();
  private final List<GuardDecision> decisions = new CopyOnWriteArrayList<>();
  private final List<ApprovalRequest> approvals = new CopyOnWriteArrayList<>();
  private ScriptedChatModel model;

  interface Assistant {
    String chat(@UserMessage String message, InvocationParameters parameters);
  }

  interface MemoryAssistant {
    String chat(@MemoryId String user, @UserMessage String message);
  }

  /** The application's tools: each records that it ran. */
  final class NoteTools {
    @Tool("Reads a note")
    String read_note(@P("the note id") String id) {
      ran.add("read_note " + id);
      return "note " + id;
    }

    @Tool("Deletes a note")
    String delete_note(@P("the note id") String id) {
      ran.add("delete_note " + id);
      return "deleted " + id;
    }

    @Tool("Empties the trash")
    String empty_trash() {
      ran.add("empty_trash");
      return "emptied";
    }

    @Tool("Transfers money")
    String transfer(@P("recipient") String to, @P("amount") int amount) {
      ran.add("transfer " + to + " " + amount);
      return "sent " + amount + " to " + to;
    }
  }

  @BeforeAll
  static void start() {
    server = AgentAuthServer.builder().port(0).build().start();
    admin = AgentAuthClient.builder().baseUrl(server.baseUrl()).apiKey(server.apiKey()).build();
    String authorizationId =
        admin
            .authorizations()
            .create(
                AuthorizationCreateParams.inline()
                    .userId(USER)
                    .agentId("notes-agent")
                    .scope("read_note")
                    .scope("delete_note")
                    .scope("transfer")
                    .requiresConfirmFor("delete_note")
                    .requiresEscalationFor("transfer")
                    .escalationTarget("transfer", "finance")
                    .expiresAt(Instant.now().plus(Duration.ofDays(1)))
                    .build())
            .authorizationId();
    grants.put(USER, authorizationId);
    // The agent holds an agent key: it can check, never approve.
    agentClient =
        admin
            .newBuilder()
            .apiKey(admin.apiKeys().create(ApiKeyCreateParams.of(ApiKeyRole.AGENT)).apiKey())
            .build();
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  @BeforeEach
  void newModel() {
    model = new ScriptedChatModel();
  }

  private LangChain4jToolGuard.Builder guard(AgentAuthClient client) {
    return LangChain4jToolGuard.builder()
        .client(client)
        .userIdSource(UserIdSource.invocationParameter("user_id"))
        .authorizationResolver((user, tool, args) -> Optional.ofNullable(grants.get(user)))
        .resourceBinding("delete_note", ResourceBinding.template("notes:{id}"))
        .listener(decisions::add)
        .approvalListener(approvals::add);
  }

  private Assistant assistant(LangChain4jToolGuard guard) {
    return AiServices.builder(Assistant.class)
        .chatModel(model)
        .tools(guard.tools(new NoteTools()))
        .build();
  }

  private static InvocationParameters as(String user) {
    return InvocationParameters.from(Map.of("user_id", user));
  }

  private static JsonNode decision(String text) throws IOException {
    return JSON.readTree(text);
  }

  @Test
  void anAllowedCallRunsTheTool() {
    Assistant assistant = assistant(guard(agentClient).build());
    model.willCall("read_note", "{\"id\":\"n1\"}");

    String answer = assistant.chat("read n1", as(USER));

    assertThat(ran).containsExactly("read_note n1");
    assertThat(model.lastResult()).isEqualTo("note n1");
    assertThat(answer).isEqualTo("tool said: note n1");
    assertThat(decisions).singleElement().satisfies(d -> assertThat(d.allowed()).isTrue());
  }

  @Test
  void aDeniedCallDoesNotRunAndTheModelReadsWhy() throws Exception {
    Assistant assistant = assistant(guard(agentClient).build());
    model.willCall("empty_trash", "{}");

    assistant.chat("empty the trash", as(USER));

    assertThat(ran).isEmpty();
    JsonNode d = decision(model.lastResult());
    assertThat(d.path("decision").asText()).isEqualTo("deny");
    assertThat(d.path("reason").asText()).isEqualTo("scope_not_authorized");
    assertThat(d.path("receipt_id").asText()).isNotEmpty();
    assertThat(d.path("message").asText())
        .isEqualTo(
            "The user's authorization does not include empty_trash; calling again will not help,"
                + " so tell the user they must grant it first.");
    assertThat(approvals).isEmpty();
  }

  @Test
  void aConfirmWaitsForTheUserAndOneApprovalCoversThatNoteOnly() throws Exception {
    Assistant assistant = assistant(guard(agentClient).build());
    model.willCall("delete_note", "{\"id\":\"n1\"}");

    assistant.chat("delete n1", as(USER));

    assertThat(ran).isEmpty();
    JsonNode first = decision(model.lastResult());
    assertThat(first.path("decision").asText()).isEqualTo("confirm");
    String nonce = first.path("confirm_nonce").asText();
    assertThat(nonce).isNotEmpty();
    assertThat(first.path("message").asText()).contains("The user must approve delete_note");
    assertThat(approvals)
        .singleElement()
        .satisfies(
            a -> {
              assertThat(a.decision()).isEqualTo(Decision.CONFIRM);
              assertThat(a.confirmNonce()).isEqualTo(nonce);
              assertThat(a.userId()).isEqualTo(USER);
              assertThat(a.call().arguments()).containsEntry("id", "n1");
            });

    // The application asks its user, who approves; the model calls again.
    admin.confirmations().approve(nonce);
    model.willCall("delete_note", "{\"id\":\"n2\"}").willCall("delete_note", "{\"id\":\"n1\"}");
    assistant.chat("delete n2", as(USER));
    JsonNode other = decision(model.lastResult());
    assistant.chat("delete n1 again", as(USER));

    assertThat(other.path("decision").asText()).isEqualTo("confirm");
    assertThat(other.path("confirm_nonce").asText()).isNotEqualTo(nonce);
    assertThat(ran).containsExactly("delete_note n1");
    assertThat(model.lastResult()).isEqualTo("deleted n1");
    assertThat(decisions.get(decisions.size() - 1).reason().value())
        .isEqualTo("authorization_granted_via_confirmation");
  }

  @Test
  void anEscalationWaitsForTheApproverAndCoversTheIdenticalCall() throws Exception {
    Assistant assistant = assistant(guard(agentClient).build());
    model.willCall("transfer", "{\"to\":\"bob\",\"amount\":10}");

    assistant.chat("pay bob", as(USER));

    assertThat(ran).isEmpty();
    JsonNode first = decision(model.lastResult());
    assertThat(first.path("decision").asText()).isEqualTo("escalate");
    assertThat(first.path("escalation_to").asText()).isEqualTo("finance");
    String escalationId = first.path("escalation_id").asText();
    assertThat(approvals)
        .singleElement()
        .satisfies(a -> assertThat(a.escalationId()).isEqualTo(escalationId));

    admin.escalations().resolve(escalationId, EscalationResolveParams.approve("fin-lead"));
    model
        .willCall("transfer", "{\"to\":\"bob\",\"amount\":99}")
        .willCall("transfer", "{\"amount\":10,\"to\":\"bob\"}");
    assistant.chat("pay bob more", as(USER));
    JsonNode more = decision(model.lastResult());
    assistant.chat("pay bob 10", as(USER));

    assertThat(more.path("decision").asText()).isEqualTo("escalate");
    assertThat(ran).containsExactly("transfer bob 10");
  }

  @Test
  void theUserComesFromTheInvocationNeverFromTheModel() throws Exception {
    Assistant assistant = assistant(guard(agentClient).build());
    // The model names alice in an argument; the invocation has no user.
    model.willCall("read_note", "{\"id\":\"n1\",\"user_id\":\"alice\"}");

    assistant.chat("read n1", InvocationParameters.from(Map.of("tenant", "t1")));

    assertThat(ran).isEmpty();
    JsonNode d = decision(model.lastResult());
    assertThat(d.path("reason").asText()).isEqualTo("missing_user_id");
    assertThat(d.path("local").asBoolean()).isTrue();
  }

  @Test
  void theMemoryIdCanNameTheUser() {
    LangChain4jToolGuard guard = guard(agentClient).userIdSource(UserIdSource.memoryId()).build();
    MemoryAssistant assistant =
        AiServices.builder(MemoryAssistant.class)
            .chatModel(model)
            .chatMemoryProvider(
                id -> dev.langchain4j.memory.chat.MessageWindowChatMemory.withMaxMessages(10))
            .tools(guard.tools(new NoteTools()))
            .build();
    model.willCall("read_note", "{\"id\":\"n7\"}").willCall("read_note", "{\"id\":\"n8\"}");

    assistant.chat(USER, "read n7");
    assistant.chat("mallory", "read n8");

    assertThat(ran).containsExactly("read_note n7");
    assertThat(model.lastResult()).contains("authorization_not_found");
  }

  @Test
  void theServiceDownFailsClosedWithTheFallbackMarkers() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    AgentAuthClient dead =
        AgentAuthClient.builder()
            .baseUrl("http://127.0.0.1:" + port)
            .apiKey("sk_unreachable")
            .maxRetries(0)
            .fallback(FallbackPolicy.failClosed().withFailOpen("read_note"))
            .build();
    Assistant assistant = assistant(guard(dead).build());
    model.willCall("delete_note", "{\"id\":\"n1\"}").willCall("read_note", "{\"id\":\"n1\"}");

    assistant.chat("delete n1", as(USER));
    JsonNode closed = decision(model.lastResult());
    assistant.chat("read n1", as(USER));

    assertThat(closed.path("reason").asText()).isEqualTo("fallback_closed_unreachable");
    assertThat(closed.path("fallback").asBoolean()).isTrue();
    assertThat(closed.path("fallback_mode").asText()).isEqualTo("fail_closed");
    assertThat(closed.path("message").asText()).contains("could not be reached");
    assertThat(ran).containsExactly("read_note n1");
    assertThat(decisions.get(1).fallbackMode()).isEqualTo(FallbackMode.FAIL_OPEN);
  }

  @Test
  void aToolProviderAndAnExecutorAreGuardedAlike() throws Exception {
    LangChain4jToolGuard guard = guard(agentClient).build();
    ToolSpecification spec = ToolSpecification.builder().name("empty_trash").build();
    ToolExecutor raw =
        (request, memoryId) -> {
          ran.add("raw " + request.name());
          return "emptied";
        };
    Assistant assistant =
        AiServices.builder(Assistant.class)
            .chatModel(model)
            .toolProvider(guard.guard(request -> new ToolProviderResult(Map.of(spec, raw))))
            .build();
    model.willCall("empty_trash", "{}");

    assistant.chat("empty the trash", as(USER));
    ToolExecutionResult direct =
        guard
            .guard(spec, raw)
            .executeWithContext(
                ToolExecutionRequest.builder().id("1").name("empty_trash").arguments("{}").build(),
                InvocationContext.builder()
                    .chatMemoryId("default")
                    .invocationParameters(as(USER))
                    .build());

    assertThat(ran).isEmpty();
    assertThat(decision(model.lastResult()).path("reason").asText())
        .isEqualTo("scope_not_authorized");
    assertThat(direct.isError()).isTrue();
    assertThat(decision(direct.resultText()).path("reason").asText())
        .isEqualTo("scope_not_authorized");
    assertThat(guard.guard(spec, guard.guard(spec, raw)).delegate()).isSameAs(raw);
  }

  @Test
  void wrapTimeChecksNameTheProblem() {
    LangChain4jToolGuard guard =
        guard(agentClient)
            .resourceBinding("empty_trash", ResourceBinding.template("trash:{bin}"))
            .build();

    assertThatThrownBy(() -> guard.tools(new NoteTools()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"bin\"");
    assertThatThrownBy(() -> guard.tools(new Object()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("@Tool");
    assertThatThrownBy(() -> LangChain4jToolGuard.builder().client(agentClient).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("user id source");
  }
}
