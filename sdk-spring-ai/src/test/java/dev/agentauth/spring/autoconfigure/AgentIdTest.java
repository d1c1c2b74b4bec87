package dev.agentauth.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.mcp.AgentAuthToolGuard;
import dev.agentauth.mcp.AuthorizationResolver;
import dev.agentauth.spring.ActiveGrantResolver;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The active-grant resolver uses the authorizations of one agent: {@code agentauth.mcp.agent-id},
 * else {@code spring.application.name}, else the application does not start.
 */
@ExtendWith(OutputCaptureExtension.class)
class AgentIdTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(AgentAuthAutoConfiguration.class))
          .withPropertyValues(
              "agentauth.base-url=http://127.0.0.1:9", "agentauth.api-key=sk_test_key");

  @Test
  void withoutAnAgentIdOrAnApplicationNameStartupFailsNamingTheProperty() {
    runner.run(
        ctx -> {
          assertThat(ctx).hasFailed();
          FailureAnalysis analysis =
              new AgentAuthConfigurationFailureAnalyzer().analyze(ctx.getStartupFailure());
          assertThat(analysis).isNotNull();
          assertThat(analysis.getDescription())
              .startsWith("agentauth.mcp.agent-id is not set, nor is spring.application.name")
              .contains("the user's grant to any agent");
          assertThat(analysis.getAction())
              .startsWith("Set agentauth.mcp.agent-id")
              .contains("spring.application.name")
              .contains("AuthorizationResolver bean");
        });
  }

  @Test
  void theApplicationNameIsTheAgentIdWhenNoneIsSetAndTheLogSaysSo(CapturedOutput output) {
    runner
        .withPropertyValues("spring.application.name=notes-bot")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx.getBean(ActiveGrantResolver.class).agentId()).isEqualTo("notes-bot");
            });
    assertThat(output)
        .contains(
            "agentauth resolves tool calls to authorizations of agent \"notes-bot\":"
                + " agentauth.mcp.agent-id is not set, so spring.application.name is used");
  }

  @Test
  void anExplicitAgentIdWinsOverTheApplicationName(CapturedOutput output) {
    runner
        .withPropertyValues(
            "spring.application.name=notes-server", "agentauth.mcp.agent-id=notes-bot")
        .run(
            ctx ->
                assertThat(ctx.getBean(ActiveGrantResolver.class).agentId())
                    .isEqualTo("notes-bot"));
    assertThat(output)
        .contains(
            "agentauth resolves tool calls to authorizations of agent \"notes-bot\""
                + " (agentauth.mcp.agent-id)");
  }

  @Test
  void anAgentIdTheServiceWouldRefuseStopsStartupNamingItsSource() {
    runner
        .withPropertyValues("agentauth.mcp.agent-id=" + "a".repeat(257))
        .run(
            ctx ->
                assertThat(
                        new AgentAuthConfigurationFailureAnalyzer()
                            .analyze(ctx.getStartupFailure())
                            .getDescription())
                    .startsWith("agentauth.mcp.agent-id is not a valid agent id")
                    .endsWith("found 257 characters."));
    runner
        .withPropertyValues("spring.application.name=notes\tbot")
        .run(
            ctx ->
                assertThat(
                        new AgentAuthConfigurationFailureAnalyzer()
                            .analyze(ctx.getStartupFailure())
                            .getDescription())
                    .startsWith("spring.application.name is not a valid agent id")
                    .endsWith("with a control character."));
  }

  @Test
  void aBlankAgentIdIsNotSet() {
    runner
        .withPropertyValues("agentauth.mcp.agent-id= ", "spring.application.name=notes-bot")
        .run(
            ctx ->
                assertThat(ctx.getBean(ActiveGrantResolver.class).agentId())
                    .isEqualTo("notes-bot"));
  }

  @Test
  void anApplicationWithItsOwnResolverNeedsNoAgentId() {
    runner
        .withBean(AuthorizationResolver.class, () -> (user, tool, args) -> Optional.of("auth_1"))
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx).hasSingleBean(AgentAuthToolGuard.class);
              assertThat(ctx).doesNotHaveBean(ActiveGrantResolver.class);
            });
  }

  @Test
  void anApplicationUsingOnlyTheClientNeedsNoAgentId() {
    runner
        .withPropertyValues("agentauth.mcp.enabled=false")
        .withClassLoader(new FilteredClassLoader(ToolCallback.class))
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx).hasSingleBean(AgentAuthClient.class);
              assertThat(ctx).doesNotHaveBean(AgentAuthToolGuard.class);
            });
  }
}
