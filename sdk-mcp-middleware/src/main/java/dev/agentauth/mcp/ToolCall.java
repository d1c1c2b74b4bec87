package dev.agentauth.mcp;

import dev.agentauth.guard.GuardCall;
import io.modelcontextprotocol.common.McpTransportContext;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;

/**
 * One guarded tool call, as the guard's extractors and resolvers see it: the tool, its arguments
 * (written by the model), and what the transport knows about the caller (trusted).
 *
 * @param toolName the name of the called tool
 * @param arguments the call's arguments: a read-only view, empty when the call had none; values are
 *     chosen by the model and must be treated as untrusted input
 * @param transportContext what the server transport extracted from the request (for streamable HTTP
 *     the {@code contextExtractor} of the transport provider, e.g. the authenticated principal);
 *     {@link McpTransportContext#EMPTY} when there is none
 * @param sessionId the MCP session id, or {@code null} when the transport has none
 */
public record ToolCall(
    String toolName,
    Map<String, Object> arguments,
    McpTransportContext transportContext,
    String sessionId) {

  /**
   * Normalizes absent arguments and context.
   *
   * @throws NullPointerException if {@code toolName} is null
   */
  public ToolCall {
    Objects.requireNonNull(toolName, "toolName");
    arguments = arguments == null ? Map.of() : Collections.unmodifiableMap(arguments);
    transportContext = transportContext == null ? McpTransportContext.EMPTY : transportContext;
  }

  /**
   * Returns the argument {@code name} when it is a string, else {@code null} (absent, JSON null, or
   * another JSON type).
   */
  public String stringArgument(String name) {
    return arguments.get(name) instanceof String s ? s : null;
  }

  /** Returns this call as the framework-neutral guard sees it, with this call as its source. */
  GuardCall asGuardCall() {
    return new GuardCall(toolName, arguments, this);
  }

  /**
   * Returns the MCP call behind {@code call}: its source when it is one, else a call with no
   * transport context and no session (a call decided in-process, outside any MCP server).
   */
  static ToolCall of(GuardCall call) {
    return call.source() instanceof ToolCall t
        ? t
        : new ToolCall(call.toolName(), call.arguments(), null, null);
  }
}
