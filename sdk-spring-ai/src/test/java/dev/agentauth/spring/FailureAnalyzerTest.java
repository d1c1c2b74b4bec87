package dev.agentauth.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

/** Startup mistakes in the starter's configuration are reported as Spring Boot reports its own. */
@ExtendWith(OutputCaptureExtension.class)
class FailureAnalyzerTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(AgentAuthAutoConfiguration.class))
          .withPropertyValues("agentauth.mcp.agent-id=test-bot");

  private static FailureAnalysis analysisOf(Throwable startupFailure) {
    return new AgentAuthConfigurationFailureAnalyzer().analyze(startupFailure);
  }

  @Test
  void theAnalyzerIsRegisteredWithSpringBoot() throws Exception {
    try (InputStream in = getClass().getResourceAsStream("/META-INF/spring.factories")) {
      assertThat(in).isNotNull();
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
          .contains(
              "org.springframework.boot.diagnostics.FailureAnalyzer=\\\n"
                  + AgentAuthConfigurationFailureAnalyzer.class.getName());
    }
  }

  @Test
  void aRealStartupWithoutAnAgentIdEndsWithTheReportNotAStackTrace(CapturedOutput output) {
    SpringApplication app = new SpringApplication(Empty.class);
    app.setWebApplicationType(WebApplicationType.NONE);
    app.setDefaultProperties(
        Map.of(
            "agentauth.base-url", "http://127.0.0.1:9",
            "agentauth.api-key", "sk_test_key",
            "spring.main.banner-mode", "off"));

    assertThatThrownBy(app::run).hasRootCauseInstanceOf(AgentAuthConfigurationException.class);
    assertThat(output)
        .contains("APPLICATION FAILED TO START")
        .contains("agentauth.mcp.agent-id is not set, nor is spring.application.name")
        .contains("Action:")
        .contains("Set agentauth.mcp.agent-id to the agent_id");
  }

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration(AgentAuthAutoConfiguration.class)
  static class Empty {}

  @Test
  void aMissingBaseUrlOrApiKeyIsReportedWithWhatToSet() {
    runner
        .withPropertyValues("agentauth.api-key=sk_test_key")
        .run(
            ctx -> {
              FailureAnalysis a = analysisOf(ctx.getStartupFailure());
              assertThat(a.getDescription()).startsWith("agentauth.base-url is not set");
              assertThat(a.getAction()).startsWith("Set agentauth.base-url");
            });
    runner
        .withPropertyValues("agentauth.base-url=http://127.0.0.1:9", "agentauth.api-key=")
        .run(
            ctx -> {
              FailureAnalysis a = analysisOf(ctx.getStartupFailure());
              assertThat(a.getDescription()).startsWith("agentauth.api-key is not set");
              assertThat(a.getAction()).contains("AGENTAUTH_API_KEY");
            });
  }

  @Test
  void aPerScopeDisabledFallbackIsReportedWithWhatToUse() {
    runner
        .withPropertyValues(
            "agentauth.base-url=http://127.0.0.1:9",
            "agentauth.api-key=sk_test_key",
            "agentauth.fallback.scopes.x=disabled")
        .run(
            ctx -> {
              FailureAnalysis a = analysisOf(ctx.getStartupFailure());
              assertThat(a.getDescription())
                  .isEqualTo(
                      "agentauth.fallback.scopes.x: expected fail-closed or fail-open, found"
                          + " disabled.");
              assertThat(a.getAction()).contains("agentauth.fallback.mode=disabled");
            });
  }

  @Test
  void otherFailuresAreLeftToSpringBoot() {
    assertThat(analysisOf(new IllegalStateException("not ours"))).isNull();
  }
}
