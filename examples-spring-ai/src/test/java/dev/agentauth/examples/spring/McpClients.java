package dev.agentauth.examples.spring;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema.ClientCapabilities;
import io.modelcontextprotocol.spec.McpSchema.ElicitFormRequest;
import io.modelcontextprotocol.spec.McpSchema.ElicitResult;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * MCP Java SDK clients of the example server, on the Jackson 3 binding (as Spring AI's server). The
 * Jackson 2 binding cannot share this class path: mcp-json-jackson2 needs json-schema-validator 2.x
 * and mcp-json-jackson3 needs 3.x (one artifact, two incompatible majors), so the middleware's own
 * tests cover it.
 */
final class McpClients {
  private McpClients() {}

  /** Jackson 3, the binding Spring AI's server uses. */
  static McpJsonMapper jackson3() {
    return new io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper(
        tools.jackson.databind.json.JsonMapper.builder().build());
  }

  /**
   * An initialized client of the example server on {@code port}, each request carrying {@code
   * Authorization: Bearer token} (none when {@code token} is null), added to {@code opened}.
   */
  static McpSyncClient connect(int port, String token, List<McpSyncClient> opened) {
    return connect(port, token, opened, null);
  }

  /**
   * As {@link #connect(int, String, List)}; with {@code elicitation} not null, the client declares
   * the {@code elicitation} capability (form mode) and answers each {@code elicitation/create} with
   * it.
   */
  static McpSyncClient connect(
      int port,
      String token,
      List<McpSyncClient> opened,
      Function<ElicitFormRequest, ElicitResult> elicitation) {
    HttpClientStreamableHttpTransport transport =
        HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
            .endpoint("/mcp")
            .jsonMapper(jackson3())
            .httpRequestCustomizer(
                (builder, method, uri, body, context) -> {
                  if (token != null) {
                    builder.header("Authorization", "Bearer " + token);
                  }
                })
            .build();
    McpClient.SyncSpec spec = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(20));
    if (elicitation != null) {
      spec.capabilities(ClientCapabilities.builder().elicitation().build())
          .elicitation(elicitation);
    }
    McpSyncClient c = spec.build();
    opened.add(c);
    c.initialize();
    return c;
  }
}
