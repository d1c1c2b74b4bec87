package dev.agentauth.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.mcp.AuthorizationResolver;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
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

  @Test
  void aRealStartupWithoutAnApiKeyEndsWithTheReportNotAStackTrace(CapturedOutput output) {
    SpringApplication app = new SpringApplication(Empty.class);
    app.setWebApplicationType(WebApplicationType.NONE);
    app.setDefaultProperties(
        Map.of(
            "agentauth.base-url", "http://127.0.0.1:9",
            "agentauth.mcp.agent-id", "test-bot",
            "spring.main.banner-mode", "off"));

    assertThatThrownBy(app::run).hasRootCauseInstanceOf(AgentAuthConfigurationException.class);
    String report =
        output.getAll().substring(output.getAll().indexOf("APPLICATION FAILED TO START"));
    assertThat(report)
        .contains("agentauth.api-key is not set: the starter's client needs an API key.")
        .contains("Action:")
        .contains("agentauth.api-key=${AGENTAUTH_API_KEY}")
        .doesNotContain("\tat ");
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
  void anUnresolvedPlaceholderNamesTheVariableToSet() {
    runner
        .withPropertyValues(
            "agentauth.base-url=http://127.0.0.1:9",
            "agentauth.api-key=${AGENTAUTH_TEST_KEY_NOT_SET_ANYWHERE}")
        .run(
            ctx -> {
              FailureAnalysis a = analysisOf(ctx.getStartupFailure());
              assertThat(a.getDescription())
                  .isEqualTo(
                      "agentauth.api-key is the unresolved placeholder"
                          + " ${AGENTAUTH_TEST_KEY_NOT_SET_ANYWHERE}: neither an environment"
                          + " variable nor a property named AGENTAUTH_TEST_KEY_NOT_SET_ANYWHERE is"
                          + " set.");
              assertThat(a.getAction())
                  .startsWith("Set the environment variable AGENTAUTH_TEST_KEY_NOT_SET_ANYWHERE");
            });
  }

  @Test
  void aMalformedBaseUrlOrApiKeyNamesThePropertyNotTheKey() {
    runner
        .withPropertyValues("agentauth.base-url=agentauth.internal", "agentauth.api-key=sk_k")
        .run(
            ctx -> {
              FailureAnalysis a = analysisOf(ctx.getStartupFailure());
              assertThat(a.getDescription())
                  .startsWith("agentauth.base-url: expected an http or https base URL");
              assertThat(a.getAction()).startsWith("Set agentauth.base-url");
            });
    runner
        .withPropertyValues(
            "agentauth.base-url=http://127.0.0.1:9", "agentauth.api-key=sk_secret\u00e9tail")
        .run(
            ctx -> {
              FailureAnalysis a = analysisOf(ctx.getStartupFailure());
              assertThat(a.getDescription())
                  .startsWith("agentauth.api-key: expected an API key of printable ASCII")
                  .doesNotContain("sk_secret");
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
  void twoResolverBeansAreReportedWithWhatToKeep() {
    runner
        .withPropertyValues(
            "agentauth.base-url=http://127.0.0.1:9", "agentauth.api-key=sk_test_key")
        .withBean("first", AuthorizationResolver.class, () -> (u, t, a) -> Optional.of("auth_1"))
        .withBean("second", AuthorizationResolver.class, () -> (u, t, a) -> Optional.of("auth_2"))
        .run(
            ctx -> {
              FailureAnalysis a = analysisOf(ctx.getStartupFailure());
              assertThat(a.getDescription())
                  .startsWith("The agentauth guard needs one authorization resolver")
                  .endsWith(
                      "found 2 AuthorizationResolver and 0 AsyncAuthorizationResolver beans.");
              assertThat(a.getAction()).contains("@Primary");
            });
  }

  @Test
  void otherFailuresAreLeftToSpringBoot() {
    assertThat(analysisOf(new IllegalStateException("not ours"))).isNull();
  }
}
