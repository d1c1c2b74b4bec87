package dev.agentauth.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code agentauth completion}: the bash/zsh completion script, from picocli's generator. */
@Command(
    name = "completion",
    mixinStandardHelpOptions = true,
    description = "Print the bash completion script (zsh: load bashcompinit first).",
    footer = {
      "",
      "Examples:",
      "  source <(java -jar agentauth.jar completion)",
      "  agentauth completion > /etc/bash_completion.d/agentauth"
    })
final class CompletionCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  private final Cli cli;

  CompletionCommand(Cli cli) {
    this.cli = cli;
  }

  @Override
  public Integer call() {
    cli.out().print(AutoComplete.bash(AgentAuthCli.PROGRAM, spec.root().commandLine()));
    return AgentAuthCli.EXIT_OK;
  }
}
