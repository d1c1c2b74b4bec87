package dev.agentauth.mcp;

import io.modelcontextprotocol.json.McpJsonMapperSupplier;
import java.util.ServiceLoader;

/**
 * Checks that the MCP Java SDK has a JSON binding on the class path. {@code mcp-core} finds its
 * JSON mapper through {@link ServiceLoader}; without a binding, the SDK fails only when a
 * transport, server or client is built, with {@code ServiceConfigurationError: No
 * McpJsonMapperSupplier available}. The guard checks when it wraps a server's tool, so that the
 * error names what to add. Not when it is built, nor for the stateless specifications: the Spring
 * starter guards a ChatClient's in-process tools through them, which needs no MCP JSON at all.
 */
final class McpJsonBinding {

  /** The message of the error: the two binding artifacts, and how to choose. */
  static final String MISSING =
      "the MCP Java SDK has no JSON binding on the class path (no McpJsonMapperSupplier): add"
          + " io.modelcontextprotocol.sdk:mcp-json-jackson2 (Jackson 2) or"
          + " io.modelcontextprotocol.sdk:mcp-json-jackson3 (Jackson 3, as Spring AI 2 uses), one"
          + " of the two, at the version of mcp-core (agentauth-bom manages both);"
          + " agentauth-sdk-mcp-middleware brings neither";

  /** Set once a binding was found: the class path does not lose it. */
  private static volatile boolean found;

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
    if (found) {
      return;
    }
    require(
        McpJsonMapperSupplier.class.getClassLoader(),
        Thread.currentThread().getContextClassLoader());
    found = true;
  }
}
