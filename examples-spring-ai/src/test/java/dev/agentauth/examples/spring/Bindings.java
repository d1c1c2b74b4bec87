package dev.agentauth.examples.spring;

import io.modelcontextprotocol.json.McpJsonMapper;

/**
 * The MCP JSON binding of the example's clients: Jackson 3, as Spring AI's server. The Jackson 2
 * binding cannot share this class path: mcp-json-jackson2 needs json-schema-validator 2.x and
 * mcp-json-jackson3 needs 3.x (one artifact, two incompatible majors), so the middleware's own
 * tests cover it.
 */
final class Bindings {
  private Bindings() {}

  /** Jackson 3, the binding Spring AI's server uses. */
  static McpJsonMapper jackson3() {
    return new io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper(
        tools.jackson.databind.json.JsonMapper.builder().build());
  }
}
