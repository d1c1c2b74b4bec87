package dev.agentauth.mcp;

import io.modelcontextprotocol.json.McpJsonMapperSupplier;
import java.util.ServiceLoader;

/**
 * Checks that the MCP Java SDK has a JSON binding on the class path. {@code mcp-core} finds its
 * JSON mapper through {@link ServiceLoader}; without a binding, the SDK fails only when a server or
 * client is first used, with {@code ServiceConfigurationError: No McpJsonMapperSupplier available}.
 * The guard's builder checks first, so the error names what to add.
 */
final class McpJsonBinding {

  /** The message of the error: the two binding artifacts, and how to choose. */
  static final String MISSING =
      "the MCP Java SDK has no JSON binding on the class path (no McpJsonMapperSupplier): add"
          + " io.modelcontextprotocol.sdk:mcp-json-jackson2 (Jackson 2) or"
          + " io.modelcontextprotocol.sdk:mcp-json-jackson3 (Jackson 3, as Spring AI 2 uses), one"
          + " of the two, at the version of mcp-core (agentauth-bom manages both);"
          + " agentauth-sdk-mcp-middleware brings neither";

  private McpJsonBinding() {}

  /**
   * Throws unless a binding is visible to {@code loaders} (any of them).
   *
   * @throws IllegalStateException naming the binding artifacts when none is
   */
  static void require(ClassLoader... loaders) {
    for (ClassLoader loader : loaders) {
      if (loader != null
          && ServiceLoader.load(McpJsonMapperSupplier.class, loader).stream()
              .findAny()
              .isPresent()) {
        return;
      }
    }
    throw new IllegalStateException(MISSING);
  }

  /**
   * Throws unless a binding is visible where the MCP SDK looks for it: its own class loader or the
   * thread's context class loader.
   */
  static void require() {
    require(
        McpJsonMapperSupplier.class.getClassLoader(),
        Thread.currentThread().getContextClassLoader());
  }
}
