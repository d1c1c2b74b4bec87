package dev.agentauth.examples.spring;

import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A Spring AI MCP server (WebMVC, streamable HTTP) whose tools are plain {@code @McpTool} and
 * {@code @Tool} methods. The agentauth starter guards every one of them: its only configuration is
 * {@code application.yml}. Callers authenticate with a bearer token ({@link BearerTokenSecurity});
 * the authenticated user is the user whose authorization each call is checked against.
 *
 * <pre>
 * AGENTAUTH_BASE_URL=http://127.0.0.1:8080 AGENTAUTH_API_KEY=sk_... \
 *     java -jar examples-spring-ai/target/agentauth-spring-ai-example.jar
 * </pre>
 */
@SpringBootApplication
public class NotesMcpServer {

  public static void main(String[] args) {
    SpringApplication.run(NotesMcpServer.class, args);
  }

  /** Exposes the {@code @Tool} methods of {@link EmailTools} as MCP tools. */
  @Bean
  ToolCallbackProvider emailToolCallbacks(EmailTools emailTools) {
    return MethodToolCallbackProvider.builder().toolObjects(emailTools).build();
  }
}
