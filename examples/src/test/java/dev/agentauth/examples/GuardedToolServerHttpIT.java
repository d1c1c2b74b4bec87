package dev.agentauth.examples;

import static dev.agentauth.examples.ExampleTestSupport.ULID;
import static dev.agentauth.examples.ExampleTestSupport.allowed;
import static dev.agentauth.examples.ExampleTestSupport.authorize;
import static dev.agentauth.examples.ExampleTestSupport.call;
import static dev.agentauth.examples.ExampleTestSupport.decision;
import static dev.agentauth.examples.ExampleTestSupport.scope;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.model.ReceiptLookup;
import dev.agentauth.server.AgentAuthServer;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The MCP Java SDK's client drives {@link GuardedToolServer} over streamable HTTP (started
 * in-process from its command line, {@code --transport http --port 0}): the caller is the {@code
 * X-User-Id} header, never the {@code user_id} argument.
 */
class GuardedToolServerHttpIT {
  private static final String ALICE = "user_alice";
  private static final String BOB = "user_bob";

  private static AgentAuthServer agentAuth;
  private static AgentAuthClient client;
  private static GuardedToolServer server;
  private static final ByteArrayOutputStream serverLog = new ByteArrayOutputStream();
  private static final List<McpSyncClient> clients = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    agentAuth = AgentAuthServer.builder().port(0).build().start();
    client =
        AgentAuthClient.builder().baseUrl(agentAuth.baseUrl()).apiKey(agentAuth.apiKey()).build();
    String alice =
        authorize(client, ALICE, scope("send_email"), scope("read_calendar"), scope("delete_file"));
    String bob = authorize(client, BOB, scope("read_calendar"));
    GuardedToolServer.Options options =
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
                ALICE + "=" + alice,
                "--grant=" + BOB + "=" + bob),
            Map.of());
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
    if (agentAuth != null) {
      agentAuth.close();
    }
  }

  /** An initialized MCP client of {@code mcpUrl} whose requests carry {@code X-User-Id: user}. */
  private static McpSyncClient mcpClient(String mcpUrl, String user) {
    URI uri = URI.create(mcpUrl);
    HttpClientStreamableHttpTransport transport =
        HttpClientStreamableHttpTransport.builder(uri.getScheme() + "://" + uri.getAuthority())
            .endpoint(uri.getPath())
            .httpRequestCustomizer(
                (builder, method, target, body, context) -> {
                  if (user != null) {
                    builder.header(GuardedToolServer.USER_HEADER, user);
                  }
                })
            .build();
    McpSyncClient c = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(10)).build();
    clients.add(c);
    c.initialize();
    return c;
  }

  @Test
  void listsTheToolsWithoutAUserIdArgument() {
    List<Tool> tools = mcpClient(server.mcpUrl(), ALICE).listTools().tools();

    assertThat(tools)
        .extracting(Tool::name)
        .containsExactlyInAnyOrder("send_email", "read_calendar", "delete_file");
    for (Tool t : tools) {
      assertThat(((Map<?, ?>) t.inputSchema().get("properties")).keySet())
          .map(Object::toString)
          .doesNotContain("user_id");
    }
  }

  @Test
  void allowRunsTheTool() {
    assertThat(allowed(call(mcpClient(server.mcpUrl(), ALICE), "read_calendar", Map.of())))
        .startsWith("Calendar for ");
  }

  @Test
  void denyIsAnErrorResultWithDecisionReasonAndReceipt() throws Exception {
    JsonNode d =
        decision(
            call(
                mcpClient(server.mcpUrl(), BOB),
                "send_email",
                Map.of("to", "ada@example.org", "subject", "x")));

    assertThat(d.path("decision").asText()).isEqualTo("deny");
    assertThat(d.path("reason").asText()).isEqualTo("scope_not_authorized");
    assertThat(client.receipts().get(d.path("receipt_id").asText()))
        .isInstanceOf(ReceiptLookup.class);
  }

  @Test
  void confirmThenApproveTheNonceAndRetryIsAllowed() throws Exception {
    McpSyncClient alice = mcpClient(server.mcpUrl(), ALICE);
    Map<String, Object> args = Map.of("path", "/srv/old.log");
    JsonNode d = decision(call(alice, "delete_file", args));
    assertThat(d.path("decision").asText()).isEqualTo("confirm");
    assertThat(d.path("confirm_prompt_hint").isTextual()).isTrue();
    assertThat(d.path("receipt_id").asText()).matches(ULID);

    client.confirmations().approve(d.path("confirm_nonce").asText());

    assertThat(allowed(call(alice, "delete_file", args))).startsWith("Deleted /srv/old.log");
  }

  @Test
  void theHeaderNotTheArgumentNamesTheUser() throws Exception {
    // Bob may not send e-mail; naming Alice in the argument changes nothing.
    JsonNode asBob =
        decision(
            call(
                mcpClient(server.mcpUrl(), BOB),
                "send_email",
                Map.of("user_id", ALICE, "to", "ada@example.org", "subject", "x")));
    assertThat(asBob.path("reason").asText()).isEqualTo("scope_not_authorized");

    // Alice may, whatever the argument says.
    assertThat(
            allowed(
                call(
                    mcpClient(server.mcpUrl(), ALICE),
                    "send_email",
                    Map.of("user_id", BOB, "to", "ada@example.org", "subject", "x"))))
        .startsWith("Sent e-mail");
  }

  @Test
  void noHeaderIsDeniedLocallyEvenWithAUserIdArgument() throws Exception {
    JsonNode d =
        decision(call(mcpClient(server.mcpUrl(), null), "read_calendar", Map.of("user_id", ALICE)));

    assertThat(d.path("decision").asText()).isEqualTo("deny");
    assertThat(d.path("reason").asText()).isEqualTo("missing_user_id");
    assertThat(d.path("local").asBoolean()).isTrue();
    assertThat(d.has("receipt_id")).isFalse();
  }

  @Test
  void aUserWithoutAGrantIsDeniedLocally() throws Exception {
    JsonNode d =
        decision(call(mcpClient(server.mcpUrl(), "user_mallory"), "read_calendar", Map.of()));

    assertThat(d.path("decision").asText()).isEqualTo("deny");
    assertThat(d.path("reason").asText()).isEqualTo("authorization_not_found");
    assertThat(d.path("local").asBoolean()).isTrue();
  }

  @Test
  void withoutAServiceItStartsTheEmbeddedOneAndGrantsTheDemoUser() throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    GuardedToolServer.Options options =
        GuardedToolServer.Options.parse(List.of("--transport", "http", "--port", "0"), Map.of());
    try (GuardedToolServer demo =
        GuardedToolServer.start(
            options,
            InputStream.nullInputStream(),
            PrintStream.nullOutputStream(),
            new PrintStream(log, true, StandardCharsets.UTF_8))) {
      McpSyncClient user = mcpClient(demo.mcpUrl(), GuardedToolServer.DEMO_USER);
      try {
        assertThat(allowed(call(user, "read_calendar", Map.of()))).startsWith("Calendar for ");
        JsonNode d = decision(call(user, "delete_file", Map.of("path", "/tmp/x")));
        assertThat(d.path("decision").asText()).isEqualTo("confirm");
      } finally {
        clients.remove(user);
        user.close();
      }
      assertThat(demo.demoAuthorizationId()).isNotBlank();
      assertThat(log.toString(StandardCharsets.UTF_8))
          .contains("demo authorization " + demo.demoAuthorizationId() + " for demo_user");
    }
  }
}
