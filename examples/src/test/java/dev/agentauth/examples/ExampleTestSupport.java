package dev.agentauth.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.model.ScopeEntry;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Shared helpers of the example integration tests. */
final class ExampleTestSupport {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String ULID = "[0-9A-HJKMNP-TV-Z]{26}";
  static final String MAIN = GuardedToolServer.class.getName();

  private ExampleTestSupport() {}

  /** This JVM's {@code java} executable. */
  static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /**
   * {@code java -cp <test class path> dev.agentauth.examples.GuardedToolServer}, then {@code args}.
   */
  static List<String> serverCommand(String... args) {
    List<String> command = new ArrayList<>();
    command.add(java());
    command.addAll(quickJvmFlags());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(MAIN);
    command.addAll(List.of(args));
    return command;
  }

  /** Flags for short-lived child JVMs: faster start, less memory on a small machine. */
  static List<String> quickJvmFlags() {
    return List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss512k");
  }

  /**
   * Creates an authorization for {@code userId}, granted to the demo agent, with {@code scopes};
   * {@code delete_file} always needs confirmation.
   */
  static String authorize(AgentAuthClient client, String userId, ScopeEntry... scopes) {
    AuthorizationCreateParams.InlineBuilder b =
        AuthorizationCreateParams.inline()
            .userId(userId)
            .agentId(GuardedToolServer.DEMO_AGENT)
            .expiresAt(Instant.now().plus(Duration.ofDays(1)));
    boolean deleteFile = false;
    for (ScopeEntry s : scopes) {
      b.scope(s);
      deleteFile |= s.name().equals("delete_file");
    }
    if (deleteFile) {
      b.requiresConfirmFor("delete_file");
    }
    return client.authorizations().create(b.build()).authorizationId();
  }

  static ScopeEntry scope(String name) {
    return ScopeEntry.of(name);
  }

  static CallToolResult call(McpSyncClient c, String tool, Map<String, Object> arguments) {
    return c.callTool(new CallToolRequest(tool, arguments));
  }

  static String text(CallToolResult r) {
    assertThat(r.content()).as("content of %s", r).hasSize(1);
    return ((TextContent) r.content().get(0)).text();
  }

  /** The decision object of an error result; its text block and structured content must agree. */
  static JsonNode decision(CallToolResult r) throws Exception {
    assertThat(r.isError()).as("isError of %s", r).isTrue();
    JsonNode text = JSON.readTree(text(r));
    JsonNode structured = JSON.valueToTree(r.structuredContent());
    assertThat(structured).as("structuredContent vs text of %s", r).isEqualTo(text);
    return text;
  }

  /** Asserts an allowed call: the tool ran and returned its text. */
  static String allowed(CallToolResult r) {
    assertThat(r.isError()).as("isError of %s", r).isNotEqualTo(Boolean.TRUE);
    return text(r);
  }
}
