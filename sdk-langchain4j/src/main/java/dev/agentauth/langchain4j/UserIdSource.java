package dev.agentauth.langchain4j;

import dev.langchain4j.invocation.InvocationParameters;
import java.util.Objects;
import java.util.function.Function;

/**
 * Where a guarded LangChain4j tool call's end user ({@code user_id}) comes from. There is no
 * default: pick one knowing who writes it.
 *
 * <ul>
 *   <li><b>The invocation (recommended)</b>: {@link #invocationParameter(String)} reads the {@link
 *       InvocationParameters} the application passes to the AI service method ({@code String
 *       chat(@UserMessage String m, InvocationParameters p)}); {@link #memoryId()} reads the chat
 *       memory id ({@code @MemoryId}) when the application keys memories by user. The model cannot
 *       change either.
 *   <li><b>A tool argument</b>: {@link #argument(String)}. The model writes the arguments, so the
 *       identity is <em>caller-controlled</em>: a prompt-injected model can name another user. Use
 *       it only when the model's input is trusted as much as the user, and declare the argument in
 *       every guarded tool.
 * </ul>
 *
 * <p>{@code null} or a blank string means "no user": the call is denied locally with {@code
 * missing_user_id}, without calling the service. Must be fast and thread-safe.
 */
@FunctionalInterface
public interface UserIdSource {

  /**
   * Returns the user id of {@code call}, or {@code null} when it has none.
   *
   * @param call the tool call being guarded
   */
  String userId(LangChain4jToolCall call);

  /**
   * Returns the source reading the string invocation parameter {@code key}, as the application set
   * it when calling the AI service (recommended).
   *
   * @throws IllegalArgumentException if {@code key} is blank
   */
  static UserIdSource invocationParameter(String key) {
    Objects.requireNonNull(key, "key");
    if (key.isBlank()) {
      throw new IllegalArgumentException("expected an invocation parameter key, found a blank one");
    }
    return call -> {
      InvocationParameters p = call.invocationParameters();
      return p != null && p.get(key) instanceof String s ? s : null;
    };
  }

  /**
   * Returns the source reading the chat memory id (the AI service method's {@code @MemoryId}
   * argument), as a string. The id LangChain4j uses when the method has no {@code @MemoryId},
   * {@code "default"}, is shared by every caller and so names no user: it gives {@code null}.
   */
  static UserIdSource memoryId() {
    return memoryId(id -> id == null || "default".equals(id) ? null : id.toString());
  }

  /**
   * Returns the source computing the user id from the chat memory id, e.g. {@code id -> ((Chat)
   * id).userId()} when memories are keyed by an object of the application's.
   */
  static UserIdSource memoryId(Function<Object, String> fn) {
    Objects.requireNonNull(fn, "fn");
    return call -> fn.apply(call.memoryId());
  }

  /**
   * Returns the source reading the string tool argument {@code name}. <b>Caller-controlled</b>: the
   * model writes it (see the interface documentation).
   *
   * @throws IllegalArgumentException if {@code name} is blank
   */
  static UserIdSource argument(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("expected an argument name, found a blank one");
    }
    return call -> call.stringArgument(name);
  }
}
