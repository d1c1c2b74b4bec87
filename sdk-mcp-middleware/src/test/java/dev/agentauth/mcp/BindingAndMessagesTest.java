package dev.agentauth.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpServerFeatures.AsyncToolSpecification;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * decisions §19 against a stand-in service: the resource each binding sends, the checks of a
 * template at wrap time, the {@code message} of every refused call, and a refused guard key.
 */
class BindingAndMessagesTest extends GuardTestSupport {

  static Tool noteTool(String name) {
    return Tool.builder()
        .name(name)
        .inputSchema(
            Map.of(
                "type",
                "object",
                "properties",
                Map.of("user_id", Map.of("type", "string"), "id", Map.of("type", "string"))))
        .build();
  }

  private CallToolResult callNote(SyncToolSpecification guarded, Map<String, Object> args) {
    return guarded.callHandler().apply(exchange(), request(guarded.tool().name(), args));
  }

  @Test
  void aPerToolTemplateIsTheResourceAndOtherToolsKeepTheDigest() throws Exception {
    AgentAuthToolGuard g =
        guard().resourceBinding("delete_note", ResourceBinding.template("notes:{id}")).build();
    server.enqueue(allow("delete_note"));
    server.enqueue(allow("read_note"));

    callNote(g.wrap(syncTool(noteTool("delete_note"))), Map.of("user_id", "u_1", "id", "n1"));
    callNote(g.wrap(syncTool(noteTool("read_note"))), Map.of("user_id", "u_1", "id", "n1"));

    assertThat(takeCheck().path("resource").asText()).isEqualTo("notes:n1");
    assertThat(takeCheck().path("resource").asText())
        .isEqualTo(
            "read_note:" + ResourceBindingTest.digestOf("{\"id\":\"n1\",\"user_id\":\"u_1\"}"));
  }

  @Test
  void theExtractorAppliesToToolsWithoutTheirOwnBinding() throws Exception {
    AgentAuthToolGuard g =
        guard()
            .resourceExtractor(c -> "mailbox:" + c.stringArgument("to"))
            .resourceBinding("delete_note", ResourceBinding.template("notes:{id}"))
            .build();
    server.enqueue(allow("send_email"));
    server.enqueue(allow("delete_note"));

    g.wrap(syncTool("send_email"))
        .callHandler()
        .apply(exchange(), request("send_email", Map.of("user_id", "u_1", "to", "ada")));
    callNote(g.wrap(syncTool(noteTool("delete_note"))), Map.of("user_id", "u_1", "id", "n1"));

    assertThat(takeCheck().path("resource").asText()).isEqualTo("mailbox:ada");
    assertThat(takeCheck().path("resource").asText()).isEqualTo("notes:n1");
  }

  @Test
  void optingOutSendsNoResource() throws Exception {
    AgentAuthToolGuard g = guard().resourceBinding("read_note", ResourceBinding.unbound()).build();
    server.enqueue(allow("read_note"));

    callNote(g.wrap(syncTool(noteTool("read_note"))), Map.of("user_id", "u_1", "id", "n1"));

    JsonNode check = takeCheck();
    assertThat(check.has("resource")).isFalse();
  }

  @Test
  void aTemplatePlaceholderTheInputSchemaLacksFailsAtWrap() {
    AgentAuthToolGuard g =
        guard().resourceBinding("delete_note", ResourceBinding.template("notes:{note_id}")).build();

    assertThatThrownBy(() -> g.wrap(syncTool(noteTool("delete_note"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tool \"delete_note\"")
        .hasMessageContaining("\"note_id\"")
        .hasMessageContaining("properties [id, user_id]");
    assertThatThrownBy(() -> g.wrap(asyncTool("delete_note")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"note_id\"");
  }

  @Test
  void aToolNameTooLongForTheDigestFailsAtWrapUnlessItHasItsOwnBinding() {
    String name = "t".repeat(213); // a scope mapper keeps the scope within its 200 characters

    assertThatThrownBy(() -> guard().scopeMapper(n -> "long_tool").build().wrap(syncTool(name)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most 212 characters")
        .hasMessageContaining("found 213");
    assertThat(
            guard()
                .scopeMapper(n -> "long_tool")
                .resourceBinding(name, ResourceBinding.unbound())
                .build()
                .wrap(syncTool(name))
                .tool()
                .name())
        .isEqualTo(name);
    assertThat(
            guard()
                .scopeMapper(n -> "long_tool")
                .build()
                .wrap(syncTool("t".repeat(212)))
                .tool()
                .name())
        .hasSize(212);
  }

  @Test
  void aMissingTemplateArgumentIsDeniedLocallyWithAMessage() throws Exception {
    AgentAuthToolGuard g =
        guard().resourceBinding("delete_note", ResourceBinding.template("notes:{id}")).build();

    CallToolResult r =
        callNote(g.wrap(syncTool(noteTool("delete_note"))), Map.of("user_id", "u_1", "id", ""));

    assertThat(r.isError()).isTrue();
    assertThat(structured(r))
        .containsEntry("decision", "deny")
        .containsEntry("reason", "invalid_resource_argument")
        .containsEntry("local", true)
        .containsEntry(
            "message",
            "The argument \"id\" of delete_note is missing or not a non-empty string or integer, so"
                + " it did not run; call it again with a valid value.");
    assertThat(server.getRequestCount()).isZero();
    assertThat(toolThreads).isEmpty();
    assertThat(decisions.get(0).local()).isTrue();
    assertThat(decisions.get(0).reason().value()).isEqualTo("invalid_resource_argument");
  }

  @Test
  void everyRefusedCallCarriesAMessageForTheModel() {
    server.enqueue(confirm("send_email"));
    server.enqueue(escalate("send_email", null));
    server.enqueue(deny("send_email", "rate_limit_exceeded"));
    server.enqueue(problem(503, "unavailable"));
    SyncToolSpecification guarded = guard().build().wrap(syncTool("send_email"));

    List<String> messages =
        List.of(call(guarded), call(guarded), call(guarded), call(guarded)).stream()
            .map(r -> (String) structured(r).get("message"))
            .toList();

    assertThat(messages)
        .containsExactly(
            "The user must approve send_email for this call; ask them to confirm it and call the"
                + " tool again with the same arguments once they have.",
            "An approver must approve this call of send_email; tell the user it is waiting for"
                + " approval and call the tool again with the same arguments once it is approved.",
            "The daily limit for send_email is reached; calling again today will not help, so"
                + " tell the user.",
            "The authorization service could not be reached, so send_email did not run; calling"
                + " again later may help, and tell the user if it keeps failing.");
  }

  @Test
  void aRevokedGuardKeyAnswersTheModelWithAToolErrorAndOneLogLine() {
    server.enqueue(problem(401, "unauthenticated"));
    server.enqueue(problem(403, "forbidden"));
    SyncToolSpecification guarded = guard().build().wrap(syncTool("send_email"));

    try (CapturedStderr log = CapturedStderr.capture()) {
      CallToolResult revoked = call(guarded);
      CallToolResult forbidden = call(guarded);

      for (CallToolResult r : List.of(revoked, forbidden)) {
        assertThat(r.isError()).isTrue();
        assertThat(structured(r))
            .containsEntry("decision", "deny")
            .containsEntry("reason", "service_unavailable")
            .containsEntry(
                "message",
                "The authorization service refused this tool server's credentials, so send_email"
                    + " did not run; calling again will not help until an operator fixes it, so"
                    + " tell the user the tool is unavailable.");
      }
      assertThat(log.guardLines()).hasSize(2);
      assertThat(log.guardLines().get(0))
          .contains("WARN")
          .contains("401 unauthenticated")
          .contains("send_email");
      assertThat(log.text()).doesNotContain("Exception").doesNotContain("\tat ");
    }
    assertThat(toolThreads).isEmpty();
    assertThat(decisions).extracting(d -> d.reason().value()).containsOnly("service_unavailable");
  }

  @Test
  void aRevokedGuardKeyOnTheAsyncPathIsTheSameToolError() {
    server.enqueue(problem(401, "unauthenticated"));
    AsyncToolSpecification guarded = guard().build().wrap(asyncTool("send_email"));

    CallToolResult r =
        guarded
            .callHandler()
            .apply(asyncExchange(McpTransportContext.EMPTY), request("send_email", u1()))
            .block(Duration.ofSeconds(5));

    assertThat(r.isError()).isTrue();
    assertThat(structured(r)).containsEntry("reason", "service_unavailable");
    assertThat(toolThreads).isEmpty();
  }
}
