package dev.agentauth.spring.autoconfigure;

import dev.agentauth.mcp.AgentAuthToolFilter;
import dev.agentauth.mcp.AgentAuthToolGuard;
import io.modelcontextprotocol.server.McpAsyncListFilter;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.mcp.customizer.McpAsyncServerCustomizer;
import org.springframework.ai.mcp.customizer.McpSyncServerCustomizer;

/** The server customizers the starter registers itself to add the tools/list filter. */
final class ToolFilterCustomizers {

  private ToolFilterCustomizers() {}

  private static final Logger log = LoggerFactory.getLogger(ToolFilterCustomizers.class);

  /** Marks a customizer of the starter's own, which the post-processor must not decorate again. */
  interface Marker {}

  /**
   * Returns whether {@code bean} is a server customizer of Spring AI's, not one of the starter's.
   */
  static boolean decorates(Object bean) {
    return !(bean instanceof Marker)
        && (bean instanceof McpSyncServerCustomizer || bean instanceof McpAsyncServerCustomizer);
  }

  /**
   * Returns {@code bean} decorated to also add the guard's tools/list filter when it is a server
   * customizer of Spring AI's (not one of the starter's), else {@code bean} itself.
   */
  static Object decorate(Object bean, String beanName, Supplier<AgentAuthToolGuard> guard) {
    if (bean instanceof Marker) {
      return bean;
    }
    if (bean instanceof McpSyncServerCustomizer customizer) {
      AgentAuthToolFilter filter = guard.get().toolFilter();
      log.info("agentauth hides unauthorized tools in tools/list (customizer {})", beanName);
      return (McpSyncServerCustomizer)
          builder -> {
            customizer.customize(builder);
            builder.addToolFilter(filter);
          };
    }
    if (bean instanceof McpAsyncServerCustomizer customizer) {
      McpAsyncListFilter<McpSchema.Tool> filter = guard.get().toolFilter().async();
      log.info("agentauth hides unauthorized tools in tools/list (customizer {})", beanName);
      return (McpAsyncServerCustomizer)
          builder -> {
            customizer.customize(builder);
            builder.addToolFilter(filter);
          };
    }
    return bean;
  }

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
