package dev.agentauth.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.GoneException;
import dev.agentauth.client.ReceiptListParams;
import dev.agentauth.model.ConfirmationDecision;
import dev.agentauth.model.Decision;
import dev.agentauth.model.ReceiptSummary;
import dev.agentauth.model.SignedReceipt;
import dev.agentauth.server.AgentAuthServer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the service recorded after the users of {@link GuardedToolServer} ({@code --elicitation})
 * answered the guard's question in their MCP client: shared by the TypeScript and the Java client
 * tests, which name each call's {@code delete_file} path after its check ({@code
 * /tmp/agentauth-elicitation/<check>.txt}).
 *
 * @param admin a client of the service with a key that may read receipts and resolve nonces
 * @param authorizationId the authorization the calls were checked against
 * @param toolServerKeyId the id of the guard's {@code tool_server} key
 */
record ElicitationAssertions(
    AgentAuthClient admin, String authorizationId, String toolServerKeyId) {
  static final String PATH_PREFIX = "/tmp/agentauth-elicitation/";

  /** For a server started with the embedded reference server: its demo authorization. */
  static ElicitationAssertions of(GuardedToolServer server) {
    AgentAuthServer embedded = server.embeddedServer();
    return new ElicitationAssertions(
        AgentAuthClient.builder().baseUrl(embedded.baseUrl()).apiKey(embedded.apiKey()).build(),
        server.demoAuthorizationId(),
        server.client().apiKeys().current().keyId());
  }

  /** The path the check named {@code check} deletes. */
  static String path(String check) {
    return PATH_PREFIX + check + ".txt";
  }

  /**
   * Asserts, from the check lines of {@code check-elicitation.mjs} (or the same shape built by a
   * Java test): {@code accept}'s allow receipt names the approval; {@code accept_unticked}'s and
   * {@code decline}'s nonces are used up; {@code cancel}'s and {@code no_capability}'s are pending.
   */
  void assertRecorded(Map<String, JsonNode> checks) {
    assertAllowReceiptNamesTheElicitation(path("accept"));
    for (String declined : List.of("accept_unticked", "decline")) {
      assertNonceUsedUp(nonce(checks, declined));
    }
    for (String pending : List.of("cancel", "no_capability")) {
      assertNoncePending(nonce(checks, pending));
    }
  }

  private static String nonce(Map<String, JsonNode> checks, String check) {
    String nonce =
        checks.get(check).path("result").path("structuredContent").path("confirm_nonce").asText();
    assertThat(nonce).as("confirm_nonce of %s: %s", check, checks.get(check)).isNotBlank();
    return nonce;
  }

  /**
   * The {@code delete_file} call of {@code path} was allowed once, bound to {@code file:<path>}
   * (the path percent-encoded, as the example's template binding writes it), and its receipt
   * records in {@code context.agentauth_confirmation} the approval it used: the tool server's key
   * and role, {@code via: mcp_elicitation}, and when.
   */
  void assertAllowReceiptNamesTheElicitation(String path) {
    String resource = "file:" + URLEncoder.encode(path, StandardCharsets.UTF_8);
    List<ReceiptSummary> allows = new ArrayList<>();
    admin
        .receipts()
        .listAutoPaging(
            ReceiptListParams.builder()
                .authorizationId(authorizationId)
                .resource(resource)
                .decision(Decision.ALLOW)
                .build())
        .forEach(allows::add);
    assertThat(allows).as("allow receipts of %s", resource).hasSize(1);
    SignedReceipt receipt =
        admin.receipts().awaitSigned(allows.get(0).receiptId(), Duration.ofSeconds(10));
    assertThat(receipt.resource()).isEqualTo(resource);
    assertThat(receipt.context()).containsKey("agentauth_confirmation");
    JsonNode confirmation =
        ExampleTestSupport.JSON.valueToTree(receipt.context().get("agentauth_confirmation"));
    assertThat(confirmation.path("key_id").asText()).isEqualTo(toolServerKeyId);
    assertThat(confirmation.path("role").asText()).isEqualTo("tool_server");
    assertThat(confirmation.path("via").asText()).isEqualTo("mcp_elicitation");
    Instant confirmedAt = Instant.parse(confirmation.path("confirmed_at").asText());
    assertThat(confirmedAt).isBeforeOrEqualTo(receipt.issuedAt());
  }

  /** The nonce was resolved (declined): approving it now is 410. */
  void assertNonceUsedUp(String nonce) {
    assertThatThrownBy(() -> admin.confirmations().approve(nonce))
        .isInstanceOf(GoneException.class)
        .satisfies(e -> assertThat(((GoneException) e).statusCode()).isEqualTo(410));
  }

  /** Nobody answered the nonce: approving it now succeeds. */
  void assertNoncePending(String nonce) {
    assertThat(admin.confirmations().approve(nonce).decision())
        .isEqualTo(ConfirmationDecision.APPROVED);
  }
}
