package dev.agentauth.mcp;

import dev.agentauth.model.CheckResult;
import dev.agentauth.model.Reason;

/**
 * The model messages of the MCP guard's results: the core's ({@link
 * dev.agentauth.guard.ModelMessages}).
 */
final class ModelMessages {
  private ModelMessages() {}

  static String of(String tool, CheckResult r) {
    return dev.agentauth.guard.ModelMessages.of(tool, r);
  }

  static String local(String tool, Reason reason, String argument) {
    return dev.agentauth.guard.ModelMessages.local(tool, reason, argument);
  }
}
