package dev.agentauth.spring.autoconfigure;

import dev.agentauth.mcp.AgentAuthToolGuard;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.util.ClassUtils;

/**
 * Wraps every MCP tool specification the application context holds with the agentauth guard, before
 * Spring AI builds the MCP server from them. Spring AI collects tools as beans of type {@code
 * List<…ToolSpecification>} ({@code @McpTool} methods, {@code @Tool} methods and {@code
 * ToolCallback}/{@code ToolCallbackProvider} beans, each converted by its auto-configuration); a
 * list bean holding sync, async, stateless sync or stateless async specifications, and a single
 * specification bean, are replaced by their guarded equivalents. Other beans pass unchanged.
 *
 * <p>With tool hiding on, Spring AI's {@code McpSyncServerCustomizer} bean (which Spring AI defines
 * for servlet servers, without {@code @ConditionalOnMissingBean}, so that a second one would
 * conflict) is decorated to also add the guard's tools/list filter.
 */
final class ToolSpecificationGuardPostProcessor implements BeanPostProcessor {

  private static final Logger log =
      LoggerFactory.getLogger(ToolSpecificationGuardPostProcessor.class);

  /** Spring AI's server customizers (spring-ai-mcp) are on the class path. */
  private static final boolean CUSTOMIZERS =
      ClassUtils.isPresent(
          "org.springframework.ai.mcp.customizer.McpSyncServerCustomizer",
          ToolSpecificationGuardPostProcessor.class.getClassLoader());

  private final Supplier<AgentAuthToolGuard> guard;
  private final Supplier<ToolBindings> bindings;
  private final BooleanSupplier hideTools;

  /**
   * @param guard the guard, looked up when the first tool is wrapped
   * @param bindings the tool bindings, looked up when the first tool is wrapped
   * @param hideTools whether tools/list hides unauthorized tools ({@code
   *     agentauth.mcp.hide-unauthorized-tools}), asked when a server customizer is post-processed
   */
  ToolSpecificationGuardPostProcessor(
      Supplier<AgentAuthToolGuard> guard,
      Supplier<ToolBindings> bindings,
      BooleanSupplier hideTools) {
    this.guard = guard;
    this.bindings = bindings;
    this.hideTools = hideTools;
  }

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    if (bean instanceof List<?> list && !list.isEmpty()) {
      return wrapList(list, beanName);
    }
    if (bean instanceof McpServerFeatures.SyncToolSpecification spec) {
      checkArguments(spec.tool());
      return logged(beanName, 1, guard.get().wrap(spec));
    }
    if (bean instanceof McpServerFeatures.AsyncToolSpecification spec) {
      checkArguments(spec.tool());
      return logged(beanName, 1, guard.get().wrap(spec));
    }
    if (bean instanceof McpStatelessServerFeatures.SyncToolSpecification spec) {
      checkArguments(spec.tool());
      return logged(beanName, 1, guard.get().wrap(spec));
    }
    if (bean instanceof McpStatelessServerFeatures.AsyncToolSpecification spec) {
      checkArguments(spec.tool());
      return logged(beanName, 1, guard.get().wrap(spec));
    }
    // Asked only of a server customizer: looking the properties up for every bean would create
    // them while they are themselves being post-processed.
    if (CUSTOMIZERS && ToolFilterCustomizers.decorates(bean) && hideTools.getAsBoolean()) {
      return ToolFilterCustomizers.decorate(bean, beanName, guard);
    }
    return bean;
  }

  /** A template naming an argument the tool lacks stops startup naming the property. */
  private void checkArguments(McpSchema.Tool tool) {
    bindings.get().requireArguments(tool.name(), tool.inputSchema(), true);
  }

  private Object wrapList(List<?> list, String beanName) {
    Object first = list.get(0);
    if (first instanceof McpServerFeatures.SyncToolSpecification) {
      return wrapAll(
          list,
          McpServerFeatures.SyncToolSpecification.class,
          beanName,
          McpServerFeatures.SyncToolSpecification::tool,
          guard.get()::wrapAllSync);
    }
    if (first instanceof McpServerFeatures.AsyncToolSpecification) {
      return wrapAll(
          list,
          McpServerFeatures.AsyncToolSpecification.class,
          beanName,
          McpServerFeatures.AsyncToolSpecification::tool,
          guard.get()::wrapAllAsync);
    }
    if (first instanceof McpStatelessServerFeatures.SyncToolSpecification) {
      return wrapAll(
          list,
          McpStatelessServerFeatures.SyncToolSpecification.class,
          beanName,
          McpStatelessServerFeatures.SyncToolSpecification::tool,
          guard.get()::wrapAllStatelessSync);
    }
    if (first instanceof McpStatelessServerFeatures.AsyncToolSpecification) {
      return wrapAll(
          list,
          McpStatelessServerFeatures.AsyncToolSpecification.class,
          beanName,
          McpStatelessServerFeatures.AsyncToolSpecification::tool,
          guard.get()::wrapAllStatelessAsync);
    }
    return list;
  }

  private <T> Object wrapAll(
      List<?> list,
      Class<T> type,
      String beanName,
      Function<T, McpSchema.Tool> toolOf,
      Function<List<T>, List<T>> wrapper) {
    for (Object element : list) {
      if (!type.isInstance(element)) {
        // Not a homogeneous list of specifications: not one Spring AI builds; leave it alone.
        log.warn(
            "agentauth left bean {} unguarded: a list mixing {} with {}",
            beanName,
            type.getName(),
            element == null ? "null" : element.getClass().getName());
        return list;
      }
    }
    @SuppressWarnings("unchecked")
    List<T> specs = (List<T>) list;
    specs.forEach(spec -> checkArguments(toolOf.apply(spec)));
    return logged(beanName, specs.size(), wrapper.apply(specs));
  }

  private static <T> T logged(String beanName, int count, T wrapped) {
    log.info("agentauth guards {} MCP tool(s) of bean {}", count, beanName);
    return wrapped;
  }
}
