package dev.agentauth.mcp;

import dev.agentauth.model.Reason;

/**
 * Thrown by {@link ResourceBinding#resourceFor(ToolCall)} when a call has no resource under its
 * binding: a template's argument is missing, {@code null}, empty or of a type a resource cannot
 * hold, or the filled template is too long. A guard denies such a call locally with reason {@value
 * #REASON}; the model can call again with a valid argument. The MCP guard's form of {@link
 * dev.agentauth.guard.ResourceBindingException}.
 */
public final class ResourceBindingException extends dev.agentauth.guard.ResourceBindingException {
  private static final long serialVersionUID = 1L;

  /** The reason of the local denial of a call that has no resource: {@value}. */
  public static final String REASON = dev.agentauth.guard.ResourceBindingException.REASON;

  /** The reason as an open-enum value. */
  static final Reason REASON_VALUE = dev.agentauth.guard.ResourceBindingException.REASON_VALUE;

  /**
   * Creates the exception.
   *
   * @param toolName the called tool
   * @param argument the argument a template could not read, or {@code null} when the problem is not
   *     one argument's
   * @param message what was expected and what was found
   */
  public ResourceBindingException(String toolName, String argument, String message) {
    super(toolName, argument, message);
  }
}
