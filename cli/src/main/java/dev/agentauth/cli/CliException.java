package dev.agentauth.cli;

/** A failure the command reports in one line and turns into its exit status. */
final class CliException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int exitCode;

  private CliException(String message, int exitCode) {
    super(message, null, false, false);
    this.exitCode = exitCode;
  }

  /** A usage or input error: exit 2. */
  static CliException usage(String message) {
    return new CliException(message, AgentAuthCli.EXIT_USAGE);
  }

  /** A failure: exit 1. */
  static CliException failure(String message) {
    return new CliException(message, AgentAuthCli.EXIT_FAILURE);
  }

  int exitCode() {
    return exitCode;
  }
}
