package dev.agentauth.examples.spring;

import io.modelcontextprotocol.json.McpJsonMapper;

/** The MCP Java SDK's two JSON bindings, for clients of the example server. */
final class Bindings {
  private Bindings() {}

  /** Jackson 3, the binding Spring AI's server uses. */
  static McpJsonMapper jackson3() {
    return new io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper(
        tools.jackson.databind.json.JsonMapper.builder().build());
  }

  /** Jackson 2, the binding of the plain MCP middleware examples. */
  static McpJsonMapper jackson2() {
    return new io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper(
        new com.fasterxml.jackson.databind.ObjectMapper());
  }
}
