package dev.agentauth.spring;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.mcp.AgentAuthToolGuard;
import dev.agentauth.model.AgentAuthJson;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.util.Map;
import java.util.Objects;
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
 * same checks, resolver, scopes, fallback policy and listeners apply as on the MCP server.
 */
public final class GuardedToolCallback implements ToolCallback {

  private static final ObjectMapper MAPPER = AgentAuthJson.newObjectMapper();
  private static final TypeReference<Map<String, Object>> ARGUMENTS = new TypeReference<>() {};

  private final ToolCallback delegate;
  private final String userIdKey;
  private final McpStatelessServerFeatures.SyncToolSpecification guarded;

  GuardedToolCallback(
      ToolCallback delegate, AgentAuthToolGuard guard, String userIdKey, ToolBindings bindings) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.userIdKey = Objects.requireNonNull(userIdKey, "userIdKey");
    ToolDefinition definition = delegate.getToolDefinition();
    // The callback's own input schema, so that the guard (and the starter, first, naming the
    // property) can check a resource template's placeholders against the tool's arguments.
    Map<String, Object> inputSchema = inputSchema(definition.inputSchema());
    bindings.requireArguments(definition.name(), inputSchema, false);
    McpSchema.Tool tool =
        new McpSchema.Tool(
            definition.name(), null, definition.description(), inputSchema, null, null, null, null);
    // The guard decides around a handler that runs the delegate with the call's input and context
    // (carried in the request's _meta, which only this class writes).
    this.guarded =
        guard.wrap(
            new McpStatelessServerFeatures.SyncToolSpecification(
                tool,
                (context, request) -> {
                  Invocation invocation = (Invocation) context.get(Invocation.KEY);
                  String output = delegate.call(invocation.input(), invocation.toolContext());
                  return CallToolResult.builder().addTextContent(output).build();
                }));
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
    Map<String, Object> context =
        userId instanceof String s && !s.isBlank()
            ? Map.of(
                AuthenticatedUserExtractor.USER_ID_KEY,
                s,
                Invocation.KEY,
                new Invocation(toolInput, toolContext))
            : Map.of(Invocation.KEY, new Invocation(toolInput, toolContext));
    CallToolRequest request =
        new CallToolRequest(delegate.getToolDefinition().name(), arguments(toolInput), null);
    CallToolResult result =
        guarded.callHandler().apply(McpTransportContext.create(context), request);
    // Allowed: the delegate's own output. Refused: the decision object, for the model to read.
    return ((TextContent) result.content().get(0)).text();
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

  /** The call's original input and context, carried to the handler the guard wraps. */
  private record Invocation(String input, ToolContext toolContext) {
    static final String KEY = "dev.agentauth/invocation";
  }
}
