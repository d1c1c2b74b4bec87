package dev.agentauth.spring;

import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * How a tool's name becomes the scope it is checked under: {@code agentauth.mcp.tool-scopes} names
 * it explicitly, else {@code agentauth.mcp.scope-prefix} followed by the tool's name. Replace the
 * bean to compute scopes otherwise. Immutable.
 */
public final class ToolScopes implements Function<String, String> {

  private final Map<String, String> explicit;
  private final String prefix;

  /**
   * @param explicit tool name to scope
   * @param prefix prefix of every other tool's scope ({@code ""} for none)
   */
  public ToolScopes(Map<String, String> explicit, String prefix) {
    this.explicit = Map.copyOf(Objects.requireNonNull(explicit, "explicit"));
    this.prefix = prefix == null ? "" : prefix;
  }

  /** Returns the scope {@code toolName} is checked under. */
  @Override
  public String apply(String toolName) {
    String scope = explicit.get(toolName);
    return scope != null ? scope : prefix + toolName;
  }

  @Override
  public String toString() {
    return "ToolScopes{explicit=" + explicit + ", prefix='" + prefix + "'}";
  }
}
