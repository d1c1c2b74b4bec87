package dev.agentauth.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.spring.AgentAuthToolCallbacks;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A wrong {@code agentauth.tools} entry stops the application with Spring Boot's failure report,
 * naming the property and what to fix; a right one starts.
 */
@ExtendWith(OutputCaptureExtension.class)
class ToolBindingsStartupTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(AgentAuthAutoConfiguration.class))
          .withUserConfiguration(Tools.class)
          .withPropertyValues(
              "agentauth.base-url=http://127.0.0.1:9",
              "agentauth.api-key=sk_test_key",
              "agentauth.mcp.agent-id=test-bot",
              "agentauth.mcp.elicitation.enabled=false");

  private static FailureAnalysis analysisOf(Throwable startupFailure) {
    FailureAnalysis a = new AgentAuthConfigurationFailureAnalyzer().analyze(startupFailure);
    assertThat(a).as("analysed: %s", startupFailure).isNotNull();
    return a;
  }

  @Test
  void aValidTemplateAndAnOptOutStart() {
    runner
        .withPropertyValues(
            "agentauth.tools.delete_note.resource=notes:{id}",
            "agentauth.tools.send_email.unbound=true")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx.getBean(ToolBindings.class).bindings())
                  .containsOnlyKeys("delete_note", "send_email");
            });
  }

  @Test
  void aPlaceholderThatIsNotAnArgumentNamesThePropertyThePlaceholderAndTheArguments() {
    runner
        .withPropertyValues("agentauth.tools.delete_note.resource=notes:{note}")
        .run(
            ctx -> {
              FailureAnalysis a = analysisOf(ctx.getStartupFailure());
              assertThat(a.getDescription())
                  .isEqualTo(
                      "agentauth.tools.delete_note.resource=\"notes:{note}\" names placeholder"
                          + " {note}, which is not an argument of tool delete_note (its arguments:"
                          + " id).");
              assertThat(a.getAction()).contains("agentauth.tools.delete_note.resource");
            });
  }

  @Test
  void aMalformedTemplateNamesTheProperty() {
    runner
        .withPropertyValues("agentauth.tools.delete_note.resource=notes:{id")
        .run(
            ctx -> {
              FailureAnalysis a = analysisOf(ctx.getStartupFailure());
              assertThat(a.getDescription())
                  .startsWith(
                      "agentauth.tools.delete_note.resource=\"notes:{id\" is not a resource"
                          + " template: ");
              assertThat(a.getAction()).contains("{argument}");
            });
  }

  @Test
  void aTemplateForAToolThatDoesNotExistNamesThePropertyAndTheTools() {
    runner
        .withPropertyValues("agentauth.tools.delete_notes.resource=notes:{id}")
        .run(
            ctx -> {
              FailureAnalysis a = analysisOf(ctx.getStartupFailure());
              assertThat(a.getDescription())
                  .isEqualTo(
                      "agentauth.tools.delete_notes configures a tool that does not exist: the"
                          + " guarded tools are [delete_note, send_email].");
              assertThat(a.getAction()).contains("agentauth.tools.delete_notes");
            });
  }

  @Test
  void aMisspeltToolInTheScopeMappingNamesThePropertyAndTheToolItMeant() {
    runner
        .withPropertyValues("agentauth.mcp.tool-scopes.send_mail=email.send")
        .run(
            ctx -> {
              FailureAnalysis a = analysisOf(ctx.getStartupFailure());
              assertThat(a.getDescription())
                  .isEqualTo(
                      "agentauth.mcp.tool-scopes.send_mail maps a tool the application does not"
                          + " have; its tool send_email is checked under its default scope"
                          + " instead. The guarded tools are [delete_note, send_email].");
              assertThat(a.getAction())
                  .isEqualTo(
                      "Correct the tool name in agentauth.mcp.tool-scopes.send_mail (write it as"
                          + " tools/list shows it: send_email?), or remove the entry.");
            });
    runner
        .withPropertyValues("agentauth.mcp.tool-scopes.Delete-Note=notes.delete")
        .run(
            ctx ->
                assertThat(analysisOf(ctx.getStartupFailure()).getAction())
                    .contains("delete_note?"));
  }

  @Test
  void aScopeMappingForAnotherToolStartsAndIsLogged(CapturedOutput output) {
    runner
        .withPropertyValues(
            "agentauth.mcp.tool-scopes.delete_note=notes.delete",
            "agentauth.mcp.tool-scopes.lookup_customer=crm.read")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(output)
                  .contains(
                      "agentauth.mcp.tool-scopes maps tool [lookup_customer], which no MCP tool is"
                          + " named");
            });
  }

  @Test
  void nearestFindsCaseSeparatorAndSmallEditsOnly() {
    Set<String> tools = Set.of("send_email", "read", "delete_note");
    assertThat(ToolBindings.nearest("SEND-EMAIL", tools)).isEqualTo("send_email");
    assertThat(ToolBindings.nearest("sendemail", tools)).isEqualTo("send_email");
    assertThat(ToolBindings.nearest("delete_notes", tools)).isEqualTo("delete_note");
    assertThat(ToolBindings.nearest("reads", tools)).isEqualTo("read");
    assertThat(ToolBindings.nearest("send", tools)).isNull();
    assertThat(ToolBindings.nearest("lookup_customer", tools)).isNull();
  }

  @Test
  void aTemplateAndTheOptOutTogetherAreRefused() {
    runner
        .withPropertyValues(
            "agentauth.tools.delete_note.resource=notes:{id}",
            "agentauth.tools.delete_note.unbound=true")
        .run(
            ctx ->
                assertThat(analysisOf(ctx.getStartupFailure()).getDescription())
                    .startsWith(
                        "agentauth.tools.delete_note.resource and"
                            + " agentauth.tools.delete_note.unbound are both set"));
  }

  @Test
  void aBlankTemplateIsRefused() {
    runner
        .withPropertyValues("agentauth.tools.delete_note.resource= ")
        .run(
            ctx ->
                assertThat(analysisOf(ctx.getStartupFailure()).getDescription())
                    .startsWith("agentauth.tools.delete_note.resource is blank"));
  }

  @Test
  void aNonPositiveElicitationTimeoutIsRefused() {
    runner
        .withPropertyValues("agentauth.mcp.elicitation.timeout=0s")
        .run(
            ctx ->
                assertThat(analysisOf(ctx.getStartupFailure()).getDescription())
                    .isEqualTo(
                        "agentauth.mcp.elicitation.timeout: expected a positive duration, found"
                            + " PT0S."));
  }

  @Test
  void withoutMcpToolsToolNamesAreNotCheckedButAChatClientsPlaceholdersAre() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(AgentAuthAutoConfiguration.class))
        .withPropertyValues(
            "agentauth.base-url=http://127.0.0.1:9",
            "agentauth.api-key=sk_test_key",
            "agentauth.mcp.agent-id=test-bot",
            "agentauth.mcp.elicitation.enabled=false",
            "agentauth.tools.lookup.resource=crm:{customer}")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              AgentAuthToolCallbacks callbacks = ctx.getBean(AgentAuthToolCallbacks.class);
              assertThatThrownBy(() -> callbacks.guard(new Lookup()))
                  .isInstanceOf(AgentAuthConfigurationException.class)
                  .hasMessageContaining(
                      "agentauth.tools.lookup.resource=\"crm:{customer}\" names placeholder"
                          + " {customer}, which is not an argument of tool lookup (its arguments:"
                          + " id).");
            });
  }

  /** Two tools of a stateless MCP server. */
  @Configuration(proxyBeanMethods = false)
  static class Tools {
    @Bean
    List<McpStatelessServerFeatures.SyncToolSpecification> tools() {
      return List.of(
          ResourceBindingIT.spec("delete_note", "id"),
          ResourceBindingIT.spec("send_email", "to", "body"));
    }
  }

  /** A ChatClient tool taking {@code id}. */
  static final class Lookup implements ToolCallback {
    @Override
    public ToolDefinition getToolDefinition() {
      return ToolDefinition.builder()
          .name("lookup")
          .description("Looks a customer up")
          .inputSchema("{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"}}}")
          .build();
    }

    @Override
    public String call(String toolInput) {
      return "{}";
    }
  }
}
