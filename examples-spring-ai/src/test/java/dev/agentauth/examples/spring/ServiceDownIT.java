package dev.agentauth.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The example server when the agentauth service cannot be reached: calls get the fallback policy's
 * decision (fail-closed, from application.yml) with its markers and a WARN line in the log, and
 * tools/list shows every tool (hiding is a convenience; the calls are still refused).
 */
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"agentauth.max-retries=0", "agentauth.check-timeout=2s"})
class ServiceDownIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @DynamicPropertySource
  static void unreachableService(DynamicPropertyRegistry registry) {
    registry.add("agentauth.base-url", () -> "http://127.0.0.1:" + closedPort());
    registry.add("agentauth.api-key", () -> "sk_unreachable");
  }

  private static int closedPort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @LocalServerPort int port;
  private final List<McpSyncClient> opened = new ArrayList<>();

  @AfterEach
  void close() {
    opened.forEach(McpSyncClient::closeGracefully);
  }

  private McpSyncClient alice() {
    return McpClients.connect(port, "alice-token", opened);
  }

  @Test
  void aCallGetsTheFailClosedFallbackWithItsMarkersAndLeavesAWarningInTheLog(CapturedOutput output)
      throws Exception {
    CallToolResult r = alice().callTool(new CallToolRequest("search_notes", Map.of("query", "x")));

    assertThat(r.isError()).isTrue();
    JsonNode d = JSON.readTree(((TextContent) r.content().get(0)).text());
    assertThat(d.path("decision").asText()).isEqualTo("deny");
    assertThat(d.path("reason").asText()).isEqualTo("fallback_closed_unreachable");
    assertThat(d.path("fallback").asBoolean()).isTrue();
    assertThat(d.path("fallback_mode").asText()).isEqualTo("fail_closed");
    assertThat(d.has("receipt_id")).isFalse();
    // The client's line reaches the application's log (Spring Boot bridges java.util.logging).
    assertThat(output)
        .containsPattern(
            "WARN .* dev\\.agentauth\\.client\\.fallback +: agentauth check fallback"
                + " \\(unreachable\\), no decision from the service: denied by fail_closed:"
                + " \\[notes\\.read\\] \\(fallback_closed_unreachable\\)")
        .doesNotContain("sk_unreachable");
  }

  @Test
  void toolsListShowsEveryToolWhenVisibilityCannotBeLookedUp() {
    assertThat(alice().listTools().tools().stream().map(Tool::name))
        .containsExactlyInAnyOrder("search_notes", "send_email", "delete_note");
  }
}
