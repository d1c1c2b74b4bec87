package dev.agentauth.examples;

import static dev.agentauth.examples.ExampleTestSupport.JSON;
import static dev.agentauth.examples.ExampleTestSupport.authorize;
import static dev.agentauth.examples.ExampleTestSupport.scope;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.ApiKeyCreateParams;
import dev.agentauth.guard.GuardDecision;
import dev.agentauth.guard.ResourceBinding;
import dev.agentauth.langchain4j.LangChain4jToolGuard;
import dev.agentauth.langchain4j.UserIdSource;
import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.server.AgentAuthServer;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.mcp.McpToolProvider;
import dev.langchain4j.mcp.client.DefaultMcpClient;
import dev.langchain4j.mcp.client.McpClient;
import dev.langchain4j.mcp.client.transport.http.StreamableHttpMcpTransport;
import dev.langchain4j.service.AiServices;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link LangChain4jAgent} end to end, and an AI service whose tools come from {@link
 * GuardedToolServer} over MCP ({@code McpToolProvider}), checked by the agent through the
 * provider's tool wrapper before the (itself guarded) server is called.
 */
class LangChain4jAgentIT {
  private static final String ALICE = "user_alice";
  private static final String BOB = "user_bob";

  private static AgentAuthServer agentAuth;
  private static AgentAuthClient admin;
  private static GuardedToolServer server;
  private static McpClient mcp;
  private static final Map<String, String> grants = new java.util.concurrent.ConcurrentHashMap<>();

  @BeforeAll
  static void start() throws Exception {
    agentAuth = AgentAuthServer.builder().port(0).build().start();
    admin =
        AgentAuthClient.builder().baseUrl(agentAuth.baseUrl()).apiKey(agentAuth.apiKey()).build();
    grants.put(
        ALICE,
        authorize(admin, ALICE, scope("send_email"), scope("read_calendar"), scope("delete_file")));
    grants.put(BOB, authorize(admin, BOB, scope("read_calendar")));
    server =
        GuardedToolServer.start(
            GuardedToolServer.Options.parse(
                List.of(
                    "--transport",
                    "http",
                    "--port",
                    "0",
                    "--agentauth-url",
                    agentAuth.baseUrl(),
                    "--api-key",
                    agentAuth.apiKey(),
                    "--grant",
                    ALICE + "=" + grants.get(ALICE),
                    "--grant=" + BOB + "=" + grants.get(BOB)),
                Map.of()),
            InputStream.nullInputStream(),
            PrintStream.nullOutputStream(),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    // The MCP connection is alice's (the server's X-User-Id); the agent checks each call first.
    mcp =
        DefaultMcpClient.builder()
            .transport(
                StreamableHttpMcpTransport.builder()
                    .url(server.mcpUrl())
                    .customHeaders(Map.of(GuardedToolServer.USER_HEADER, ALICE))
                    .timeout(Duration.ofSeconds(10))
                    .build())
            .build();
  }

  @AfterAll
  static void stop() throws Exception {
    if (mcp != null) {
      mcp.close();
    }
    if (server != null) {
      server.close();
    }
    if (agentAuth != null) {
      agentAuth.close();
    }
  }

  @Test
  void theExampleRunsTheAllowedAndTheApprovedCallsOnly() {
    ByteArrayOutputStream transcript = new ByteArrayOutputStream();

    List<String> ran =
        LangChain4jAgent.run(new PrintStream(transcript, true, StandardCharsets.UTF_8));

    assertThat(ran).containsExactly("read_note n1", "delete_note n1");
    String text = transcript.toString(StandardCharsets.UTF_8);
    assertThat(text)
        .contains("\"decision\":\"confirm\"")
        .contains("is asked to approve delete_note {id=n1}")
        .contains("[tool result] deleted note n1")
        .contains("\"reason\":\"scope_not_authorized\"");
  }

  interface Assistant {
    String chat(
        @dev.langchain4j.service.UserMessage String message, InvocationParameters parameters);
  }

  private record Agent(Assistant assistant, List<GuardDecision> decisions) {}

  private static Agent agent(LangChain4jAgent.ScriptedModel model) {
    AgentAuthClient agentKey =
        admin
            .newBuilder()
            .apiKey(admin.apiKeys().create(ApiKeyCreateParams.of(ApiKeyRole.AGENT)).apiKey())
            .build();
    List<GuardDecision> decisions = new CopyOnWriteArrayList<>();
    LangChain4jToolGuard guard =
        LangChain4jToolGuard.builder()
            .client(agentKey)
            .userIdSource(UserIdSource.invocationParameter("user_id"))
            .authorizationResolver((user, tool, a) -> Optional.ofNullable(grants.get(user)))
            // The server's binding, so that one approval covers the agent's and the server's check.
            .resourceBinding("delete_file", ResourceBinding.template("file:{path}"))
            .listener(decisions::add)
            .build();
    // @start region="mcp"
    McpToolProvider tools =
        McpToolProvider.builder().mcpClients(mcp).toolWrapper(guard.mcpToolWrapper()).build();
    // @end region="mcp"
    return new Agent(
        AiServices.builder(Assistant.class).chatModel(model).toolProvider(tools).build(),
        decisions);
  }

  private static InvocationParameters as(String user) {
    return InvocationParameters.from(Map.of("user_id", user));
  }

  private static JsonNode decisionIn(String answer) throws Exception {
    return JSON.readTree(answer.substring(answer.indexOf('{')));
  }

  @Test
  void anMcpClientToolIsCheckedByTheAgentBeforeTheServerIsCalled() throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    LangChain4jAgent.ScriptedModel model =
        new LangChain4jAgent.ScriptedModel(new PrintStream(log, true, StandardCharsets.UTF_8));
    Agent agent = agent(model);

    model.willCall("read_calendar", "{}");
    String allowed = agent.assistant().chat("my calendar", as(ALICE));
    model.willCall("send_email", "{\"to\":\"ada@example.org\",\"subject\":\"hi\"}");
    String denied = agent.assistant().chat("mail ada", as(BOB));

    assertThat(allowed).startsWith("The tool said: Calendar for ");
    JsonNode d = decisionIn(denied);
    assertThat(d.path("decision").asText()).isEqualTo("deny");
    assertThat(d.path("reason").asText()).isEqualTo("scope_not_authorized");
    assertThat(d.path("message").asText()).contains("send_email");
    assertThat(agent.decisions())
        .extracting(x -> x.toolName() + " " + x.userId() + " " + x.decision().value())
        .containsExactly("read_calendar user_alice allow", "send_email user_bob deny");
  }

  @Test
  void aConfirmedMcpClientCallRunsOnceApprovedAndAnotherFileAsksAgain() throws Exception {
    LangChain4jAgent.ScriptedModel model =
        new LangChain4jAgent.ScriptedModel(new PrintStream(OutputStream.nullOutputStream()));
    Agent agent = agent(model);

    model.willCall("delete_file", "{\"path\":\"/srv/a.log\"}");
    JsonNode confirm = decisionIn(agent.assistant().chat("delete a.log", as(ALICE)));
    assertThat(confirm.path("decision").asText()).isEqualTo("confirm");
    admin.confirmations().approve(confirm.path("confirm_nonce").asText());

    model.willCall("delete_file", "{\"path\":\"/srv/a.log\"}");
    String retried = agent.assistant().chat("delete a.log again", as(ALICE));
    model.willCall("delete_file", "{\"path\":\"/srv/b.log\"}");
    JsonNode other = decisionIn(agent.assistant().chat("delete b.log", as(ALICE)));

    assertThat(retried).startsWith("The tool said: Deleted /srv/a.log");
    assertThat(other.path("decision").asText()).isEqualTo("confirm");
    assertThat(other.path("confirm_nonce").asText())
        .isNotEqualTo(confirm.path("confirm_nonce").asText());
  }
}
