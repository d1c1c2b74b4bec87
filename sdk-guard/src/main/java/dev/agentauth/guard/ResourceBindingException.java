package dev.agentauth.guard;

import dev.agentauth.model.Reason;

/**
 * Thrown by {@link ResourceBinding#resourceFor(GuardCall)} when a call has no resource under its
 * binding: a template's argument is missing, {@code null}, empty or of a type a resource cannot
 * hold, or the filled template is too long. A guard denies such a call locally with reason {@value
 * #REASON}; the model can call again with a valid argument.
 */
public class ResourceBindingException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** The reason of the local denial of a call that has no resource: {@value}. */
  public static final String REASON = "invalid_resource_argument";

  /** The reason as an open-enum value. */
  public static final Reason REASON_VALUE = Reason.of(REASON);

  private final String toolName;
  private final String argument;

  /**
   * Creates the exception.
   *
   * @param toolName the called tool
   * @param argument the argument a template could not read, or {@code null} when the problem is not
   *     one argument's
   * @param message what was expected and what was found
   */
  public ResourceBindingException(String toolName, String argument, String message) {
    super(message);
    this.toolName = toolName;
    this.argument = argument;
  }

  /** Returns the called tool. */
  public String toolName() {
    return toolName;
  }

  /** Returns the argument a template could not read, or {@code null}. */
  public String argument() {
    return argument;
  }
}
