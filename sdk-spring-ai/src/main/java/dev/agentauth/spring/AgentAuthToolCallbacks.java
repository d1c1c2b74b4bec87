package dev.agentauth.spring;

import dev.agentauth.mcp.AgentAuthToolGuard;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;

/**
 * Guards the tools a {@code ChatClient} calls in-process (a bean of the starter):
 *
 * <pre>{@code
 * chatClient.prompt(question)
 *     .tools((Object[]) toolCallbacks.guard(ToolCallbacks.from(new CrmTools())))
 *     .toolContext(Map.of("user_id", currentUser))
 *     .call()
 *     .content();
 * }</pre>
 *
 * <p>Each returned callback is a {@link GuardedToolCallback}: checked before it runs, user id from
 * the {@code ToolContext} entry {@code agentauth.chat.user-id-key} (default {@code user_id}), a
 * refusal returned to the model as the tool's result. Do not also register guarded callbacks as
 * beans that the MCP server exposes: the server guards its tools itself, and each call would be
 * checked twice.
 */
public final class AgentAuthToolCallbacks {

  private final AgentAuthToolGuard guard;
  private final String userIdKey;
  private final BiConsumer<String, Map<String, Object>> inspector;

  /**
   * @param guard the guard whose user id source reads {@link
   *     AuthenticatedUserExtractor#USER_ID_KEY} from the transport context
   * @param userIdKey the tool context entry holding the user id
   */
  public AgentAuthToolCallbacks(AgentAuthToolGuard guard, String userIdKey) {
    this(guard, userIdKey, (toolName, inputSchema) -> {});
  }

  /**
   * As above, with {@code inspector} told of each tool before it is guarded: its name and its input
   * schema (a JSON object, parsed). What the inspector throws, {@link #guard(ToolCallback)} throws,
   * and the tool is not guarded. The starter's bean checks here that the tool's {@code
   * agentauth.tools} entry names only arguments the tool has, and notes the tool as existing.
   *
   * @param guard the guard whose user id source reads {@link
   *     AuthenticatedUserExtractor#USER_ID_KEY} from the transport context
   * @param userIdKey the tool context entry holding the user id
   * @param inspector told of each tool's name and input schema before it is guarded
   */
  public AgentAuthToolCallbacks(
      AgentAuthToolGuard guard,
      String userIdKey,
      BiConsumer<String, Map<String, Object>> inspector) {
    this.guard = Objects.requireNonNull(guard, "guard");
    this.userIdKey = Objects.requireNonNull(userIdKey, "userIdKey");
    this.inspector = Objects.requireNonNull(inspector, "inspector");
  }

  /**
   * Returns {@code callback} guarded (a guarded callback is returned as it is).
   *
   * @throws IllegalStateException if the inspector refuses the tool; the starter's bean does when
   *     {@code agentauth.tools.<tool>.resource} names a placeholder that is not an argument of the
   *     tool's input schema
   * @throws IllegalArgumentException if the guard cannot take the tool (its resource binding reads
   *     an argument the input schema does not declare, or its name maps to no valid scope)
   */
  public ToolCallback guard(ToolCallback callback) {
    Objects.requireNonNull(callback, "callback");
    return callback instanceof GuardedToolCallback
        ? callback
        : new GuardedToolCallback(callback, guard, userIdKey, inspector);
  }

  /** Returns every callback guarded, in order. */
  public ToolCallback[] guard(ToolCallback... callbacks) {
    return Arrays.stream(Objects.requireNonNull(callbacks, "callbacks"))
        .map(this::guard)
        .toArray(ToolCallback[]::new);
  }

  /** Returns every callback guarded, in order. */
  public List<ToolCallback> guard(List<? extends ToolCallback> callbacks) {
    return Objects.requireNonNull(callbacks, "callbacks").stream().map(this::guard).toList();
  }

  /** Returns a provider of {@code provider}'s callbacks, guarded. */
  public ToolCallbackProvider guard(ToolCallbackProvider provider) {
    Objects.requireNonNull(provider, "provider");
    return () -> guard(provider.getToolCallbacks());
  }
}
