package dev.agentauth.guard;

import java.util.Objects;

/**
 * A tool as {@link ToolGuard#tool(String, java.util.Set)} prepared it, once, before its first call:
 * its name, the scope its calls are checked for, and the binding that names each call's resource.
 *
 * @param name the tool's name
 * @param scope the checked scope (the name, after the guard's scope mapper)
 * @param binding what one approval of the tool's calls covers
 */
public record GuardedTool(String name, String scope, ResourceBinding binding) {

  /**
   * Requires every member.
   *
   * @throws NullPointerException if a member is null
   */
  public GuardedTool {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(binding, "binding");
  }
}
