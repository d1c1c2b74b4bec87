package dev.agentauth.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.client.ApiException;
import dev.agentauth.mcp.GuardDecision;
import dev.agentauth.model.SignedReceipt;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ElicitFormRequest;
import io.modelcontextprotocol.spec.McpSchema.ElicitResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The example server asks the user in their MCP client (elicitation, on by default because its key
 * has role {@code tool_server}), driven by the MCP Java SDK client with an elicitation handler
 * answering accept, decline and cancel, against the embedded reference server.
 *
 * <p>Each test has its own user and bearer token (beside application.yml's), whose grant makes
 * {@code delete_note} need a confirmation, so that no confirmation window of one test opens
 * another's calls.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "notes.tokens[el-accept-token]=el_accept",
      "notes.tokens[el-decline-token]=el_decline",
      "notes.tokens[el-cancel-token]=el_cancel",
      "notes.tokens[el-plain-token]=el_plain"
    })
@Import(AgentAuthTestServer.Decisions.class)
class ElicitationIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<McpSyncClient> CLIENTS = new CopyOnWriteArrayList<>();

  /** The reference server's prompt hint is the scope's name. */
  private static final String HINT = "notes.delete";

  @DynamicPropertySource
  static void agentAuth(DynamicPropertyRegistry registry) {
    AgentAuthTestServer.register(registry);
  }

  @BeforeAll
  static void grant() {
    for (String user : List.of("el_accept", "el_decline", "el_cancel", "el_plain")) {
      AgentAuthTestServer.client()
          .authorizations()
          .create(
              AgentAuthTestServer.grant(user)
                  .scope("notes.read")
                  .scope("notes.delete")
                  .requiresConfirmFor("notes.delete")
                  .build());
    }
  }

  @AfterAll
  static void closeClients() {
    CLIENTS.forEach(McpSyncClient::closeGracefully);
  }

  @LocalServerPort int port;
  @Autowired AgentAuthTestServer.DecisionLog log;

  /** A client answering every elicitation with {@code answer}, recording the requests. */
  private McpSyncClient client(
      String token,
      List<ElicitFormRequest> asked,
      Function<ElicitFormRequest, ElicitResult> answer) {
    return McpClients.connect(
        port,
        token,
        CLIENTS,
        request -> {
          asked.add(request);
          return answer.apply(request);
        });
  }

  private static CallToolResult delete(McpSyncClient c, String id) {
    return c.callTool(new CallToolRequest("delete_note", Map.of("id", id)));
  }

  private static String text(CallToolResult r) {
    return ((TextContent) r.content().get(0)).text();
  }

  private static JsonNode decision(CallToolResult r) throws Exception {
    assertThat(r.isError()).as("isError of %s", r).isTrue();
    return JSON.readTree(text(r));
  }

  private static ElicitResult approve(boolean approve) {
    return new ElicitResult(ElicitResult.Action.ACCEPT, Map.of("approve", approve));
  }

  @Test
  void acceptingRunsTheToolInTheSameCallAndCoversOnlyThatNote() throws Exception {
    List<ElicitFormRequest> asked = new CopyOnWriteArrayList<>();
    McpSyncClient c = client("el-accept-token", asked, r -> approve(true));

    CallToolResult deleted = delete(c, "n1");

    assertThat(Boolean.TRUE.equals(deleted.isError())).as(text(deleted)).isFalse();
    assertThat(text(deleted)).contains("deleted n1");
    assertThat(asked).hasSize(1);
    ElicitFormRequest form = asked.get(0);
    assertThat(form.message()).contains("delete_note", HINT, "id: n1");
    assertThat(form.requestedSchema()).containsEntry("required", List.of("approve"));
    GuardDecision allow = log.last();
    assertThat(allow.userId()).isEqualTo("el_accept");
    assertThat(allow.reason().value()).isEqualTo("authorization_granted_via_confirmation");
    SignedReceipt receipt =
        AgentAuthTestServer.client()
            .receipts()
            .awaitSigned(allow.receiptId(), Duration.ofSeconds(10));
    @SuppressWarnings("unchecked")
    Map<String, Object> confirmation =
        (Map<String, Object>) receipt.context().get("agentauth_confirmation");
    assertThat(confirmation)
        .containsEntry("key_id", AgentAuthTestServer.toolServerKey().keyId())
        .containsEntry("role", "tool_server")
        .containsEntry("via", "mcp_elicitation");

    // Deleting another note is another action: the user is asked again.
    CallToolResult other = delete(c, "n2");

    assertThat(asked).hasSize(2);
    assertThat(asked.get(1).message()).contains("id: n2");
    assertThat(text(other)).contains("deleted n2");
  }

  @Test
  void decliningDeclinesTheNonceAndTheToolDoesNotRun() throws Exception {
    List<ElicitFormRequest> asked = new CopyOnWriteArrayList<>();
    McpSyncClient c =
        client("el-decline-token", asked, r -> new ElicitResult(ElicitResult.Action.DECLINE, null));

    JsonNode d = decision(delete(c, "n1"));

    assertThat(asked).hasSize(1);
    assertThat(d.path("decision").asText()).isEqualTo("deny");
    assertThat(d.path("reason").asText()).isEqualTo("confirmation_declined");
    assertThat(d.path("message").asText()).isNotBlank();
    // Declined, the nonce cannot be approved any more: the application's own approval is refused.
    String nonce = d.path("confirm_nonce").asText();
    assertThat(nonce).isNotBlank();
    assertThatThrownBy(() -> AgentAuthTestServer.client().confirmations().approve(nonce))
        .isInstanceOf(ApiException.class);
  }

  @Test
  void answeringNoIsADecline() throws Exception {
    List<ElicitFormRequest> asked = new CopyOnWriteArrayList<>();
    McpSyncClient c = client("el-plain-token", asked, r -> approve(false));

    JsonNode d = decision(delete(c, "n2"));

    assertThat(asked).hasSize(1);
    assertThat(d.path("decision").asText()).isEqualTo("deny");
    assertThat(d.path("reason").asText()).isEqualTo("confirmation_declined");
  }

  @Test
  void cancellingLeavesTheNonceForTheApplicationAndReturnsTheConfirmResult() throws Exception {
    List<ElicitFormRequest> asked = new CopyOnWriteArrayList<>();
    McpSyncClient c =
        client("el-cancel-token", asked, r -> new ElicitResult(ElicitResult.Action.CANCEL, null));

    // n7 does not exist: the retry below runs the tool without deleting another test's note.
    JsonNode d = decision(delete(c, "n7"));

    assertThat(asked).hasSize(1);
    assertThat(d.path("decision").asText()).isEqualTo("confirm");
    assertThat(d.path("confirm_nonce").asText()).isNotBlank();
    // The nonce is still open: approved elsewhere, the retry runs without asking again.
    AgentAuthTestServer.client().confirmations().approve(d.path("confirm_nonce").asText());
    CallToolResult retry = delete(c, "n7");

    assertThat(Boolean.TRUE.equals(retry.isError())).as(text(retry)).isFalse();
    assertThat(text(retry)).contains("no such note");
    assertThat(log.last().reason().value()).isEqualTo("authorization_granted_via_confirmation");
    assertThat(asked).hasSize(1);
  }

  @Test
  void aClientWithoutElicitationGetsTheConfirmResult() throws Exception {
    McpSyncClient c = McpClients.connect(port, "el-plain-token", CLIENTS);

    JsonNode d = decision(c.callTool(new CallToolRequest("delete_note", Map.of("id", "n9"))));

    assertThat(d.path("decision").asText()).isEqualTo("confirm");
    assertThat(d.path("message").asText()).isNotBlank();
  }
}
