package dev.agentauth.spring;

import dev.agentauth.mcp.AgentAuthToolGuard;
import org.springframework.ai.mcp.customizer.McpAsyncServerCustomizer;

/** The server customizers the starter registers itself to add the tools/list filter. */
final class ToolFilterCustomizers {

  private ToolFilterCustomizers() {}

  /** Marks a customizer of the starter's own, which the post-processor must not decorate again. */
  interface Marker {}

  /** Adds the non-blocking tools/list filter to an async server. */
  static final class Async implements McpAsyncServerCustomizer, Marker {
    private final AgentAuthToolGuard guard;

    Async(AgentAuthToolGuard guard) {
      this.guard = guard;
    }

    @Override
    public void customize(io.modelcontextprotocol.server.McpServer.AsyncSpecification<?> builder) {
      builder.addToolFilter(guard.toolFilter().async());
    }
  }
}
