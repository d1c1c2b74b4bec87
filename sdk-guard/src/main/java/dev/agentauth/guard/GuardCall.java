package dev.agentauth.guard;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;

/**
 * One guarded tool call as the framework-neutral core sees it: the tool, its arguments (written by
 * the model), and the framework's own view of the call, for extractors written against it.
 *
 * @param toolName the name of the called tool
 * @param arguments the call's arguments: a read-only view, empty when the call had none; values are
 *     chosen by the model and must be treated as untrusted input
 * @param source what the adapter knows of the call in its framework's terms (the MCP guard's {@code
 *     ToolCall}, the LangChain4j adapter's {@code LangChain4jToolCall}, ...), or {@code null}
 */
public record GuardCall(String toolName, Map<String, Object> arguments, Object source) {

  /**
   * Normalizes absent arguments.
   *
   * @throws NullPointerException if {@code toolName} is null
   */
  public GuardCall {
    Objects.requireNonNull(toolName, "toolName");
    arguments = arguments == null ? Map.of() : Collections.unmodifiableMap(arguments);
  }

  /**
   * Returns the argument {@code name} when it is a string, else {@code null} (absent, JSON null, or
   * another JSON type).
   */
  public String stringArgument(String name) {
    return arguments.get(name) instanceof String s ? s : null;
  }

  /** Returns {@link #source()} when it is a {@code type}, else {@code null}. */
  public <T> T source(Class<T> type) {
    return type.isInstance(source) ? type.cast(source) : null;
  }
}
