package dev.agentauth.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A wrong {@code agentauth.tools} entry stops the application with Spring Boot's failure report,
 * naming the property and what to fix; a right one starts.
 */
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
