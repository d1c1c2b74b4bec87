package dev.agentauth.mcp;

import java.util.Objects;

/**
 * The {@link UserIdSource#argument(String)} source: a string tool argument. A type of its own so
 * the guard can check, when wrapping, that each tool's input schema admits the argument.
 */
record ArgumentUserIdSource(String name) implements UserIdSource {
  ArgumentUserIdSource {
    Objects.requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("expected an argument name, found a blank string");
    }
  }

  @Override
  public String userId(ToolCall call) {
    return call.stringArgument(name);
  }
}
