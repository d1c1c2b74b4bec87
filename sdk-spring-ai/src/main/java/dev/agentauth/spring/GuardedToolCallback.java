package dev.agentauth.spring;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.guard.GuardCall;
import dev.agentauth.guard.GuardOutcome;
import dev.agentauth.guard.GuardedTool;
import dev.agentauth.guard.ToolGuard;
import dev.agentauth.mcp.AgentAuthToolGuard;
import dev.agentauth.model.AgentAuthJson;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.metadata.ToolMetadata;

/**
 * A {@link ToolCallback} that checks each call with agentauth before the wrapped callback runs: the
 * in-process counterpart of the MCP server guard, for agents whose {@code ChatClient} calls tools
 * itself. The user id comes from the call's {@link ToolContext} (set by the application, e.g.
 * {@code chatClient.prompt().toolContext(Map.of("user_id", user))}), never from the model.
 *
 * <p>A call that is not allowed does not run; the model receives, as the tool's result, the JSON
 * decision object of the MCP guard's error results ({@code decision}, {@code reason}, and {@code
 * confirm_nonce}, {@code escalation_id}, … as the case may be) and the conversation goes on. The
 * same checks, resolver, scopes, fallback policy and listeners apply as on the MCP server: both are
 * adapters of the one framework-neutral {@link ToolGuard}, which this class asks directly.
 */
public final class GuardedToolCallback implements ToolCallback {

  private static final ObjectMapper MAPPER = AgentAuthJson.newObjectMapper();
  private static final TypeReference<Map<String, Object>> ARGUMENTS = new TypeReference<>() {};

  private final ToolCallback delegate;
  private final String userIdKey;
  private final ToolGuard core;
  private final GuardedTool tool;

  GuardedToolCallback(
      ToolCallback delegate,
      AgentAuthToolGuard guard,
      String userIdKey,
      BiConsumer<String, Map<String, Object>> inspector) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.userIdKey = Objects.requireNonNull(userIdKey, "userIdKey");
    ToolDefinition definition = delegate.getToolDefinition();
    // The callback's own input schema, so that the core (and the inspector, first: the starter's
    // names the property) can check a resource template's placeholders against the tool's
    // arguments.
    Map<String, Object> inputSchema = inputSchema(definition.inputSchema());
    inspector.accept(definition.name(), Collections.unmodifiableMap(inputSchema));
    this.core = guard.core();
    this.tool = core.tool(definition.name(), properties(inputSchema));
  }

  /** Returns the wrapped callback. */
  public ToolCallback delegate() {
    return delegate;
  }

  @Override
  public ToolDefinition getToolDefinition() {
    return delegate.getToolDefinition();
  }

  @Override
  public ToolMetadata getToolMetadata() {
    return delegate.getToolMetadata();
  }

  /** Checks without a tool context: there is no user, so the call is denied locally. */
  @Override
  public String call(String toolInput) {
    return call(toolInput, null);
  }

  @Override
  public String call(String toolInput, ToolContext toolContext) {
    Object userId = toolContext == null ? null : toolContext.getContext().get(userIdKey);
    GuardOutcome outcome =
        core.decide(
            tool,
            userId instanceof String s ? s : null,
            new GuardCall(tool.name(), arguments(toolInput), toolContext));
    // Allowed: the delegate's own output. Refused: the decision object, for the model to read.
    return outcome.allowed() ? delegate.call(toolInput, toolContext) : outcome.text();
  }

  private static Set<String> properties(Map<String, Object> inputSchema) {
    if (inputSchema.get("properties") instanceof Map<?, ?> properties) {
      Set<String> names = new java.util.HashSet<>();
      for (Object key : properties.keySet()) {
        names.add(String.valueOf(key));
      }
      return names;
    }
    return Set.of();
  }

  private static Map<String, Object> inputSchema(String json) {
    if (json == null || json.isBlank()) {
      return Map.of("type", "object");
    }
    try {
      Map<String, Object> parsed = MAPPER.readValue(json, ARGUMENTS);
      return parsed == null ? Map.of("type", "object") : parsed;
    } catch (JsonProcessingException e) {
      // Not a JSON object: the tool has no named arguments, so no template can bind one.
      return Map.of("type", "object");
    }
  }

  private static Map<String, Object> arguments(String toolInput) {
    if (toolInput == null || toolInput.isBlank()) {
      return Map.of();
    }
    try {
      Map<String, Object> parsed = MAPPER.readValue(toolInput, ARGUMENTS);
      return parsed == null ? Map.of() : parsed;
    } catch (JsonProcessingException e) {
      // Not a JSON object: the delegate decides what to make of it; extractors see no arguments.
      return Map.of();
    }
  }

  @Override
  public String toString() {
    return "GuardedToolCallback{" + delegate.getToolDefinition().name() + "}";
  }
}
