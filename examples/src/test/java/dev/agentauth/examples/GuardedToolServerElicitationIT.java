package dev.agentauth.examples;

import static dev.agentauth.examples.ElicitationAssertions.path;
import static dev.agentauth.examples.ExampleTestSupport.JSON;
import static dev.agentauth.examples.ExampleTestSupport.allowed;
import static dev.agentauth.examples.ExampleTestSupport.authorize;
import static dev.agentauth.examples.ExampleTestSupport.call;
import static dev.agentauth.examples.ExampleTestSupport.decision;
import static dev.agentauth.examples.ExampleTestSupport.scope;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.ApiKeyCreateParams;
import dev.agentauth.model.ApiKey;
import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.server.AgentAuthServer;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ClientCapabilities;
import io.modelcontextprotocol.spec.McpSchema.ElicitFormRequest;
import io.modelcontextprotocol.spec.McpSchema.ElicitResult;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link GuardedToolServer} with {@code --elicitation}: the MCP Java SDK's client, declaring the
 * {@code elicitation} capability, answers the guard's question in the same {@code tools/call} —
 * over streamable HTTP against the embedded reference server and its demo user (the server creates
 * its own {@code tool_server} key), and over stdio against a service given with {@code
 * --agentauth-url} and a {@code tool_server} key. The same answers as {@code
 * ts-client/check-elicitation.mjs} ({@link TypeScriptClientIT}), from a second client library.
 */
class GuardedToolServerElicitationIT {
  private static final ByteArrayOutputStream serverLog = new ByteArrayOutputStream();
  private static final List<McpSyncClient> clients = new CopyOnWriteArrayList<>();
  private static GuardedToolServer server;

  @BeforeAll
  static void start() throws Exception {
    GuardedToolServer.Options options =
        GuardedToolServer.Options.parse(
            List.of("--transport", "http", "--port", "0", "--elicitation"), Map.of());
    server =
        GuardedToolServer.start(
            options,
            InputStream.nullInputStream(),
            PrintStream.nullOutputStream(),
            new PrintStream(serverLog, true, StandardCharsets.UTF_8));
  }

  @AfterAll
  static void stop() {
    clients.forEach(McpSyncClient::close);
    if (server != null) {
      server.close();
    }
  }

  /** What the user was asked, and how they answer. */
  private static final class User implements Function<ElicitFormRequest, ElicitResult> {
    final List<ElicitFormRequest> asked = new CopyOnWriteArrayList<>();
    private final Function<ElicitFormRequest, ElicitResult> answer;

    User(Function<ElicitFormRequest, ElicitResult> answer) {
      this.answer = answer;
    }

    @Override
    public ElicitResult apply(ElicitFormRequest request) {
      asked.add(request);
      return answer.apply(request);
    }
  }

  /** Accepts the form with its one boolean field set to {@code approved}. */
  private static User ticks(boolean approved) {
    return new User(
        form -> new ElicitResult(ElicitResult.Action.ACCEPT, Map.of(field(form), approved)));
  }

  private static User answers(ElicitResult.Action action) {
    return new User(form -> new ElicitResult(action, null));
  }

  /** The form's one boolean field: the user's "yes, run it". */
  private static String field(ElicitFormRequest form) {
    @SuppressWarnings("unchecked")
    Map<String, Map<String, Object>> properties =
        (Map<String, Map<String, Object>>) form.requestedSchema().get("properties");
    List<String> booleans =
        properties.entrySet().stream()
            .filter(e -> "boolean".equals(e.getValue().get("type")))
            .map(Map.Entry::getKey)
            .toList();
    assertThat(booleans).as("boolean fields of %s", form.requestedSchema()).hasSize(1);
    return booleans.get(0);
  }

  /**
   * An initialized client of the HTTP server as the demo user; with {@code user}, it declares the
   * elicitation capability and {@code user} answers.
   */
  private static McpSyncClient httpClient(User user) {
    URI uri = URI.create(server.mcpUrl());
    HttpClientStreamableHttpTransport transport =
        HttpClientStreamableHttpTransport.builder(uri.getScheme() + "://" + uri.getAuthority())
            .endpoint(uri.getPath())
            .httpRequestCustomizer(
                (builder, method, target, body, context) ->
                    builder.header(GuardedToolServer.USER_HEADER, GuardedToolServer.DEMO_USER))
            .build();
    return connect(transport, user, Duration.ofSeconds(20));
  }

  private static McpSyncClient connect(McpClientTransport transport, User user, Duration timeout) {
    McpClient.SyncSpec spec = McpClient.sync(transport).requestTimeout(timeout);
    if (user != null) {
      spec.capabilities(ClientCapabilities.builder().elicitation().build()).elicitation(user);
    }
    McpSyncClient c = spec.build();
    clients.add(c);
    c.initialize();
    return c;
  }

  private static CallToolResult deleteFile(McpSyncClient c, String path) {
    return call(c, "delete_file", Map.of("path", path));
  }

  /** The user saw one form naming the tool and the bound path. */
  private static void assertAskedOnceAbout(User user, String path) {
    assertThat(user.asked).hasSize(1);
    ElicitFormRequest form = user.asked.get(0);
    assertThat(form.message()).contains("delete_file").contains(path);
    assertThat(form.requestedSchema()).containsEntry("type", "object");
    field(form);
  }

  /** A check line as {@code check-elicitation.mjs} prints it: {"result": {"structuredContent"}}. */
  private static JsonNode checkLine(JsonNode decision) {
    ObjectNode line = JSON.createObjectNode();
    line.putObject("result").set("structuredContent", decision);
    return line;
  }

  @Test
  void eachAnswerOfTheUserDoesWhatTheExampleDocuments() throws Exception {
    Map<String, JsonNode> checks = new LinkedHashMap<>();

    // accept + ticked: approved via mcp_elicitation, re-checked, run — in one tools/call.
    User yes = ticks(true);
    assertThat(allowed(deleteFile(httpClient(yes), path("accept"))))
        .startsWith("Deleted " + path("accept"));
    assertAskedOnceAbout(yes, path("accept"));

    // accept + unticked, and decline: the nonce is declined; a deny the model can explain.
    for (Map.Entry<String, User> declines :
        Map.of("accept_unticked", ticks(false), "decline", answers(ElicitResult.Action.DECLINE))
            .entrySet()) {
      String check = declines.getKey();
      JsonNode d = decision(deleteFile(httpClient(declines.getValue()), path(check)));
      assertThat(d.path("decision").asText()).as(check).isEqualTo("deny");
      assertThat(d.path("reason").asText()).as(check).isEqualTo("confirmation_declined");
      assertThat(d.path("message").asText()).as(check).isNotBlank();
      assertAskedOnceAbout(declines.getValue(), path(check));
      checks.put(check, checkLine(d));
    }

    // cancel: the confirm result, as without elicitation.
    User dismisses = answers(ElicitResult.Action.CANCEL);
    JsonNode cancelled = decision(deleteFile(httpClient(dismisses), path("cancel")));
    assertThat(cancelled.path("decision").asText()).isEqualTo("confirm");
    assertThat(cancelled.path("reason").asText()).isEqualTo("scope_requires_user_confirmation");
    assertAskedOnceAbout(dismisses, path("cancel"));
    checks.put("cancel", checkLine(cancelled));

    // A client without the capability is never asked: the confirm result.
    JsonNode unasked = decision(deleteFile(httpClient(null), path("no_capability")));
    assertThat(unasked.path("decision").asText()).isEqualTo("confirm");
    checks.put("no_capability", checkLine(unasked));

    ElicitationAssertions.of(server).assertRecorded(checks);
  }

  @Test
  void anApprovalCoversThatFileOnly() throws Exception {
    String approved = path("covers_one");
    String other = path("covers_one_other");
    User yes = ticks(true);
    assertThat(allowed(deleteFile(httpClient(yes), approved))).startsWith("Deleted " + approved);

    // Within the approval's window an identical call runs without asking again, even from a
    // client that cannot be asked; another file needs its own confirmation.
    McpSyncClient unaskable = httpClient(null);
    assertThat(allowed(deleteFile(unaskable, approved))).startsWith("Deleted " + approved);
    JsonNode d = decision(deleteFile(unaskable, other));
    assertThat(d.path("decision").asText()).isEqualTo("confirm");
    assertThat(yes.asked).hasSize(1);
  }

  @Test
  void overStdioAgainstAServiceWithAToolServerKey() throws Exception {
    Queue<String> childLog = new ConcurrentLinkedQueue<>();
    try (AgentAuthServer agentAuth = AgentAuthServer.builder().port(0).build().start()) {
      AgentAuthClient admin =
          AgentAuthClient.builder().baseUrl(agentAuth.baseUrl()).apiKey(agentAuth.apiKey()).build();
      String user = "user_stdio";
      String authorizationId = authorize(admin, user, scope("delete_file"));
      ApiKey toolServer =
          admin.apiKeys().create(ApiKeyCreateParams.of(ApiKeyRole.TOOL_SERVER).withName("stdio"));

      List<String> command =
          ExampleTestSupport.serverCommand(
              "--transport",
              "stdio",
              "--elicitation",
              "--agentauth-url",
              agentAuth.baseUrl(),
              "--api-key",
              toolServer.apiKey(),
              "--grant",
              user + "=" + authorizationId);
      StdioClientTransport transport =
          new StdioClientTransport(
              ServerParameters.builder(command.get(0))
                  .args(command.subList(1, command.size()))
                  .build(),
              McpJsonDefaults.getMapper());
      transport.setStdErrorHandler(childLog::add);
      User yes = ticks(true);
      McpClient.SyncSpec spec =
          McpClient.sync(transport)
              .requestTimeout(Duration.ofSeconds(20))
              .initializationTimeout(Duration.ofSeconds(30))
              .capabilities(ClientCapabilities.builder().elicitation().build())
              .elicitation(yes);
      McpSyncClient stdio = spec.build();
      try {
        stdio.initialize();
        String path = path("stdio");
        CallToolResult r = call(stdio, "delete_file", Map.of("user_id", user, "path", path));

        assertThat(allowed(r)).as("child log: %s", childLog).startsWith("Deleted " + path);
        assertAskedOnceAbout(yes, path);
        new ElicitationAssertions(admin, authorizationId, toolServer.keyId())
            .assertAllowReceiptNamesTheElicitation(path);
      } finally {
        stdio.close();
      }
    }
  }

  @Test
  void anAgentKeyCannotApproveAndTheCallFallsBackToTheConfirmResult() throws Exception {
    try (AgentAuthServer agentAuth = AgentAuthServer.builder().port(0).build().start()) {
      AgentAuthClient admin =
          AgentAuthClient.builder().baseUrl(agentAuth.baseUrl()).apiKey(agentAuth.apiKey()).build();
      String user = "user_agent_key";
      String authorizationId = authorize(admin, user, scope("delete_file"));
      ApiKey agentKey = admin.apiKeys().create(ApiKeyCreateParams.of(ApiKeyRole.AGENT));
      ByteArrayOutputStream log = new ByteArrayOutputStream();
      GuardedToolServer.Options options =
          GuardedToolServer.Options.parse(
              List.of(
                  "--transport",
                  "http",
                  "--port",
                  "0",
                  "--elicitation",
                  "--agentauth-url",
                  agentAuth.baseUrl(),
                  "--api-key",
                  agentKey.apiKey(),
                  "--grant",
                  user + "=" + authorizationId),
              Map.of());
      try (GuardedToolServer agentServer =
          GuardedToolServer.start(
              options,
              InputStream.nullInputStream(),
              PrintStream.nullOutputStream(),
              new PrintStream(log, true, StandardCharsets.UTF_8))) {
        assertThat(log.toString(StandardCharsets.UTF_8))
            .contains("--elicitation with a key of role agent");
        URI uri = URI.create(agentServer.mcpUrl());
        HttpClientStreamableHttpTransport transport =
            HttpClientStreamableHttpTransport.builder(uri.getScheme() + "://" + uri.getAuthority())
                .endpoint(uri.getPath())
                .httpRequestCustomizer(
                    (builder, method, target, body, context) ->
                        builder.header(GuardedToolServer.USER_HEADER, user))
                .build();
        User yes = ticks(true);
        McpSyncClient c = connect(transport, yes, Duration.ofSeconds(20));
        try {
          JsonNode d = decision(deleteFile(c, path("agent_key")));

          assertThat(yes.asked).hasSize(1);
          assertThat(d.path("decision").asText()).isEqualTo("confirm");
          new ElicitationAssertions(admin, authorizationId, agentKey.keyId())
              .assertNoncePending(d.path("confirm_nonce").asText());
        } finally {
          // Before its server stops, not after (a close then finds no server to tell).
          clients.remove(c);
          c.close();
        }
      }
    }
  }
}
