package dev.agentauth.examples.spring;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.McpJsonMapper;
import java.time.Duration;
import java.util.List;

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
    McpSyncClient c = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(20)).build();
    opened.add(c);
    c.initialize();
    return c;
  }
}
