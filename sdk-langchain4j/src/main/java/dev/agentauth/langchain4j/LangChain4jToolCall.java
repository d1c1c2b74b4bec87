package dev.agentauth.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.invocation.InvocationParameters;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;

/**
 * One guarded LangChain4j tool call, as user id sources and extractors see it: the model's request
 * (tool name and arguments, both written by the model) and the AI service invocation it belongs to
 * (memory id and {@link InvocationParameters}, set by the application: trusted).
 *
 * @param request the tool execution request the model produced
 * @param arguments the request's arguments parsed as a JSON object: read-only, empty when they are
 *     absent or not an object; untrusted
 * @param context the AI service invocation, or {@code null} when the executor was called without
 *     one
 */
public record LangChain4jToolCall(
    ToolExecutionRequest request, Map<String, Object> arguments, InvocationContext context) {

  /**
   * Normalizes absent arguments.
   *
   * @throws NullPointerException if {@code request} is null
   */
  public LangChain4jToolCall {
    Objects.requireNonNull(request, "request");
    arguments = arguments == null ? Map.of() : Collections.unmodifiableMap(arguments);
  }

  /** Returns the called tool's name. */
  public String toolName() {
    return request.name();
  }

  /** Returns the invocation's chat memory id, or {@code null}. */
  public Object memoryId() {
    return context == null ? null : context.chatMemoryId();
  }

  /** Returns the invocation's parameters, or {@code null} when there is no invocation context. */
  public InvocationParameters invocationParameters() {
    return context == null ? null : context.invocationParameters();
  }

  /**
   * Returns the argument {@code name} when it is a string, else {@code null} (absent, JSON null, or
   * another JSON type). Written by the model.
   */
  public String stringArgument(String name) {
    return arguments.get(name) instanceof String s ? s : null;
  }
}
