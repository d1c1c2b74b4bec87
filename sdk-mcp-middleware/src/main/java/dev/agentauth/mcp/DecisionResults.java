package dev.agentauth.mcp;

import dev.agentauth.guard.GuardResults;
import dev.agentauth.model.CheckResult;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.util.Map;

/**
 * Builds the error results of refused tool calls: the core's decision object ({@link GuardResults})
 * as JSON text, and as {@code structuredContent} or, for tools with an output schema, {@code
 * _meta}.
 */
final class DecisionResults {
  private DecisionResults() {}

  static Map<String, Object> body(String toolName, CheckResult r) {
    return GuardResults.body(toolName, r);
  }

  /**
   * Returns the error result carrying {@code body}: {@code isError}, one text block with the JSON,
   * and the same object as {@code structuredContent}; when {@code tool} declares an output schema,
   * which MCP clients validate structured content against even on errors, the object goes into
   * {@code _meta} under {@link AgentAuthToolGuard#DECISION_META_KEY} instead.
   */
  static CallToolResult error(Tool tool, Map<String, Object> body) {
    CallToolResult.Builder b = CallToolResult.builder().addTextContent(json(body)).isError(true);
    if (hasOutputSchema(tool)) {
      b.meta(Map.of(AgentAuthToolGuard.DECISION_META_KEY, body));
    } else {
      b.structuredContent(body);
    }
    return b.build();
  }

  private static boolean hasOutputSchema(Tool tool) {
    return tool.outputSchema() != null && !tool.outputSchema().isEmpty();
  }

  private static String json(Map<String, Object> body) {
    return GuardResults.json(body);
  }
}
