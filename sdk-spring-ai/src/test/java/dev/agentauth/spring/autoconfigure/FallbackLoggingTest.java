package dev.agentauth.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.spring.AgentAuthToolCallbacks;
import dev.agentauth.spring.AuthenticatedUserExtractor;
import dev.agentauth.spring.RecordingToolCallback;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * While the service cannot be reached, the starter's tools are decided by the fallback policy and
 * each fallback leaves a WARN line in the application's log: written once, by the client, naming
 * the tool's scope; a fail-open allow says it was not the service's.
 */
class FallbackLoggingTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(AgentAuthAutoConfiguration.class))
          .withUserConfiguration(AgentAuthAutoConfigurationTest.SyncTools.class)
          .withPropertyValues(
              "agentauth.base-url=http://127.0.0.1:" + unusedPort(),
              "agentauth.api-key=sk_test_5ecret",
              "agentauth.max-retries=0",
              "agentauth.mcp.agent-id=notes-bot",
              "agentauth.mcp.tool-scopes.read_inbox=inbox.read",
              "agentauth.mcp.tool-scopes.send_email=email.send",
              "agentauth.fallback.scopes[inbox.read]=fail-open");

  private static int unusedPort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static CallToolResult callAsAlice(List<?> specs) {
    McpServerFeatures.SyncToolSpecification spec =
        (McpServerFeatures.SyncToolSpecification) specs.get(0);
    McpTransportContext alice =
        McpTransportContext.create(Map.of(AuthenticatedUserExtractor.USER_ID_KEY, "alice"));
    McpSyncServerExchange exchange =
        new McpSyncServerExchange(new McpAsyncServerExchange("s-1", null, null, null, alice));
    return spec.callHandler()
        .apply(exchange, AgentAuthAutoConfigurationTest.request(spec.tool().name()));
  }

  @Test
  void aFailOpenToolRunsAndTheLogSaysItWasAllowedWithoutADecision() {
    runner.run(
        ctx -> {
          try (CapturedLog log = CapturedLog.fallbacks()) {
            List<?> tools = ctx.getBean("syncTools", List.class);

            CallToolResult first = callAsAlice(tools);
            CallToolResult second = callAsAlice(tools);

            assertThat(AgentAuthAutoConfigurationTest.text(first)).isEqualTo("ran");
            assertThat(AgentAuthAutoConfigurationTest.text(second)).isEqualTo("ran");
            // one line: the second fallback falls within the 10 s of the first
            assertThat(log.warnings())
                .singleElement()
                .asString()
                .startsWith("agentauth check fallback (unreachable)")
                .contains(
                    "ALLOWED WITHOUT A DECISION by fail_open: [inbox.read]"
                        + " (fallback_open_unreachable)")
                .contains("Whoever can slow or block the service decides every fail_open scope.")
                .doesNotContain("sk_test_5ecret");
          }
        });
  }

  @Test
  void aFailClosedChatClientToolIsDeniedAndLoggedOnce() {
    runner.run(
        ctx -> {
          try (CapturedLog log = CapturedLog.fallbacks()) {
            RecordingToolCallback tool = new RecordingToolCallback("send_email");

            String out =
                ctx.getBean(AgentAuthToolCallbacks.class)
                    .guard(tool)
                    .call("{}", new ToolContext(Map.of("user_id", "alice")));

            assertThat(out).contains("\"reason\":\"fallback_closed_unreachable\"");
            assertThat(tool.input.get()).isNull();
            assertThat(log.warnings())
                .singleElement()
                .asString()
                .contains("denied by fail_closed: [email.send] (fallback_closed_unreachable)")
                .doesNotContain("ALLOWED");
          }
        });
  }
}
