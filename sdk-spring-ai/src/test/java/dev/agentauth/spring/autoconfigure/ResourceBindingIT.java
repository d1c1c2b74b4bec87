package dev.agentauth.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.client.EscalationResolveParams;
import dev.agentauth.model.ScopeConstraints;
import dev.agentauth.server.AgentAuthServer;
import dev.agentauth.spring.AgentAuthToolCallbacks;
import dev.agentauth.spring.AuthenticatedUserExtractor;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What one approval covers, as the starter configures it from {@code agentauth.tools.*}, against
 * the embedded reference server: MCP tool specifications and ChatClient callbacks alike. Each test
 * has its own user, so that no confirmation window of one test opens another's calls.
 */
class ResourceBindingIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String AGENT = "notes-bot";

  private static AgentAuthServer server;
  private static AgentAuthClient admin;
  private static ApplicationContextRunner runner;

  @BeforeAll
  static void start() {
    server = AgentAuthServer.builder().port(0).build().start();
    admin = AgentAuthClient.builder().baseUrl(server.baseUrl()).apiKey(server.apiKey()).build();
    runner =
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AgentAuthAutoConfiguration.class))
            .withUserConfiguration(NotesTools.class)
            .withPropertyValues(
                "agentauth.base-url=" + server.baseUrl(),
                "agentauth.api-key=" + server.apiKey(),
                "agentauth.mcp.agent-id=" + AGENT,
                "agentauth.mcp.elicitation.enabled=false",
                "agentauth.mcp.tool-scopes.delete_note=notes.delete",
                "agentauth.mcp.tool-scopes.purge_note=notes.delete",
                "agentauth.mcp.tool-scopes.archive_note=notes.archive",
                "agentauth.mcp.tool-scopes.read_note=notes.read",
                "agentauth.mcp.tool-scopes.read_other=notes.read",
                "agentauth.mcp.tool-scopes.send_email=email.send",
                "agentauth.tools.delete_note.resource=notes:{id}",
                "agentauth.tools.archive_note.resource=notes:{id}",
                "agentauth.tools.read_note.resource=notes:{id}",
                "agentauth.tools.read_other.resource=other:{id}",
                "agentauth.tools.purge_note.unbound=true");
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  /**
   * Grants {@code user} every scope the tools use: deleting and e-mail confirmed, archiving
   * escalated, reading only notes ({@code resource_pattern} {@code notes:*}).
   */
  private static void grant(String user) {
    admin
        .authorizations()
        .create(
            AuthorizationCreateParams.inline()
                .userId(user)
                .agentId(AGENT)
                .scope("notes.delete")
                .scope("notes.archive")
                .scope("email.send")
                .scope("notes.read", ScopeConstraints.builder().resourcePattern("notes:*").build())
                .requiresConfirmFor("notes.delete", "email.send")
                .requiresEscalationFor("notes.archive")
                .escalationTarget("notes.archive", "security")
                .expiresAt(Instant.now().plus(Duration.ofDays(1)))
                .build());
  }

  @Test
  void approvingTheDeletionOfOneNoteDoesNotApproveAnother() throws Exception {
    grant("alice");
    runner.run(
        ctx -> {
          JsonNode first =
              decision(call(ctx, "delete_note", "alice", Map.of("id", "n1", "reason", "old")));
          assertThat(first.path("decision").asText()).isEqualTo("confirm");
          admin.confirmations().approve(first.path("confirm_nonce").asText());

          JsonNode other =
              decision(call(ctx, "delete_note", "alice", Map.of("id", "n2", "reason", "old")));
          // The template binds id alone: the same note for another reason is the approved action.
          CallToolResult retry =
              call(ctx, "delete_note", "alice", Map.of("id", "n1", "reason", "stale"));

          assertThat(other.path("decision").asText()).isEqualTo("confirm");
          assertThat(other.path("confirm_nonce").asText())
              .isNotBlank()
              .isNotEqualTo(first.path("confirm_nonce").asText());
          assertThat(text(retry)).startsWith("ran delete_note").contains("id=n1", "reason=stale");
        });
  }

  @Test
  void anApprovedEscalationRunsOnlyTheCallItWasRaisedFor() throws Exception {
    grant("bea");
    runner.run(
        ctx -> {
          JsonNode first = decision(call(ctx, "archive_note", "bea", Map.of("id", "n1")));
          assertThat(first.path("decision").asText()).isEqualTo("escalate");
          admin
              .escalations()
              .resolve(
                  first.path("escalation_id").asText(), EscalationResolveParams.approve("sec_1"));

          JsonNode other = decision(call(ctx, "archive_note", "bea", Map.of("id", "n2")));
          CallToolResult retry = call(ctx, "archive_note", "bea", Map.of("id", "n1"));

          assertThat(other.path("decision").asText()).isEqualTo("escalate");
          assertThat(other.path("escalation_id").asText())
              .isNotEqualTo(first.path("escalation_id").asText());
          assertThat(text(retry)).isEqualTo("ran archive_note {id=n1}");
        });
  }

  @Test
  void aResourcePatternIsMatchedAgainstTheTemplatesResource() throws Exception {
    grant("cyd");
    runner.run(
        ctx -> {
          CallToolResult matching = call(ctx, "read_note", "cyd", Map.of("id", "n1"));
          JsonNode elsewhere = decision(call(ctx, "read_other", "cyd", Map.of("id", "n1")));

          assertThat(text(matching)).isEqualTo("ran read_note {id=n1}");
          assertThat(elsewhere.path("decision").asText()).isEqualTo("deny");
          assertThat(elsewhere.path("reason").asText()).isEqualTo("scope_not_authorized");
        });
  }

  @Test
  void withoutConfigurationAnApprovalCoversOnlyIdenticalArguments() throws Exception {
    grant("dee");
    runner.run(
        ctx -> {
          Map<String, Object> hi = Map.of("to", "ada@example.org", "body", "hi");
          JsonNode first = decision(call(ctx, "send_email", "dee", hi));
          admin.confirmations().approve(first.path("confirm_nonce").asText());

          JsonNode otherBody =
              decision(
                  call(ctx, "send_email", "dee", Map.of("to", "ada@example.org", "body", "bye")));
          CallToolResult same = call(ctx, "send_email", "dee", hi);

          assertThat(otherBody.path("decision").asText()).isEqualTo("confirm");
          assertThat(otherBody.path("confirm_nonce").asText())
              .isNotEqualTo(first.path("confirm_nonce").asText());
          assertThat(text(same)).startsWith("ran send_email");
        });
  }

  @Test
  void anUnboundToolsApprovalCoversEveryCallOfItsScope() throws Exception {
    grant("eve");
    runner.run(
        ctx -> {
          JsonNode first = decision(call(ctx, "purge_note", "eve", Map.of("id", "n1")));
          admin.confirmations().approve(first.path("confirm_nonce").asText());

          CallToolResult other = call(ctx, "purge_note", "eve", Map.of("id", "n2"));

          assertThat(text(other)).isEqualTo("ran purge_note {id=n2}");
        });
  }

  @Test
  void aChatClientCallbackIsBoundByTheSameProperty() throws Exception {
    grant("fay");
    runner.run(
        ctx -> {
          AgentAuthToolCallbacks callbacks = ctx.getBean(AgentAuthToolCallbacks.class);
          ToolCallback delete = callbacks.guard(new DeleteNoteCallback());
          ToolContext fay = new ToolContext(Map.of("user_id", "fay"));

          JsonNode first = JSON.readTree(delete.call("{\"id\":\"n1\",\"reason\":\"old\"}", fay));
          assertThat(first.path("decision").asText()).isEqualTo("confirm");
          admin.confirmations().approve(first.path("confirm_nonce").asText());
          JsonNode other = JSON.readTree(delete.call("{\"id\":\"n2\",\"reason\":\"old\"}", fay));
          String retry = delete.call("{\"id\":\"n1\",\"reason\":\"stale\"}", fay);

          assertThat(other.path("decision").asText()).isEqualTo("confirm");
          assertThat(other.path("confirm_nonce").asText())
              .isNotEqualTo(first.path("confirm_nonce").asText());
          assertThat(retry).isEqualTo("deleted {\"id\":\"n1\",\"reason\":\"stale\"}");
        });
  }

  // ---- support ----------------------------------------------------------------------------------

  @SuppressWarnings("unchecked")
  private static CallToolResult call(
      ApplicationContext ctx, String tool, String user, Map<String, Object> arguments) {
    List<McpStatelessServerFeatures.SyncToolSpecification> specs =
        ctx.getBean("notesTools", List.class);
    McpStatelessServerFeatures.SyncToolSpecification spec =
        specs.stream().filter(s -> s.tool().name().equals(tool)).findFirst().orElseThrow();
    return spec.callHandler()
        .apply(
            McpTransportContext.create(Map.of(AuthenticatedUserExtractor.USER_ID_KEY, user)),
            new CallToolRequest(tool, arguments));
  }

  private static String text(CallToolResult r) {
    return ((TextContent) r.content().get(0)).text();
  }

  private static JsonNode decision(CallToolResult r) throws Exception {
    assertThat(r.isError()).as("an error result: %s", r).isTrue();
    return JSON.readTree(text(r));
  }

  static Tool tool(String name, String... arguments) {
    Map<String, Object> properties = new java.util.LinkedHashMap<>();
    for (String a : arguments) {
      properties.put(a, Map.of("type", "string"));
    }
    return Tool.builder(name, Map.of("type", "object", "properties", properties)).build();
  }

  static McpStatelessServerFeatures.SyncToolSpecification spec(String name, String... arguments) {
    return new McpStatelessServerFeatures.SyncToolSpecification(
        tool(name, arguments),
        (context, request) ->
            CallToolResult.builder()
                .addTextContent("ran " + name + " " + request.arguments())
                .build());
  }

  /** A stateless MCP server's tools, as Spring AI hands them to the starter. */
  @Configuration(proxyBeanMethods = false)
  static class NotesTools {
    @Bean
    List<McpStatelessServerFeatures.SyncToolSpecification> notesTools() {
      return List.of(
          spec("delete_note", "id", "reason"),
          spec("purge_note", "id"),
          spec("archive_note", "id"),
          spec("read_note", "id"),
          spec("read_other", "id"),
          spec("send_email", "to", "body"));
    }
  }

  /** A ChatClient tool deleting a note by {@code id}. */
  static final class DeleteNoteCallback implements ToolCallback {
    @Override
    public ToolDefinition getToolDefinition() {
      return ToolDefinition.builder()
          .name("delete_note")
          .description("Deletes a note")
          .inputSchema(
              "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},"
                  + "\"reason\":{\"type\":\"string\"}},\"required\":[\"id\"]}")
          .build();
    }

    @Override
    public String call(String toolInput) {
      return "deleted " + toolInput;
    }

    @Override
    public String call(String toolInput, ToolContext toolContext) {
      return call(toolInput);
    }
  }
}
