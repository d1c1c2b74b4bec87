package dev.agentauth.cli;

import dev.agentauth.client.AgentAuthClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code agentauth signing-keys}: the workspace's public keys document exactly as served, the
 * {@code --keys} file of {@code agentauth-verify}.
 */
@Command(
    name = "signing-keys",
    mixinStandardHelpOptions = true,
    description = {
      "Print the workspace's public signing keys document as served"
          + " (GET /v1/workspaces/{id}/keys): the --keys file of agentauth-verify.",
      "The workspace is the API key's unless --workspace names another."
    },
    footer = {"", "Example:", "  agentauth signing-keys > keys.json"})
final class SigningKeysCommand extends ApiCommand {
  @Option(names = "--workspace", paramLabel = "ID", description = "Workspace id.")
  String workspace;

  SigningKeysCommand(Cli cli) {
    super(cli);
  }

  @Override
  int run(AgentAuthClient client) {
    String id = workspace != null ? workspace : client.apiKeys().current().workspaceId();
    cli.out().println(client.workspaces().keysJson(id));
    return AgentAuthCli.EXIT_OK;
  }
}
