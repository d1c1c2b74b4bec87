package dev.agentauth.cli;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.model.ApiKey;
import picocli.CommandLine.Command;

/** {@code agentauth whoami}: the calling key's record ({@code GET /v1/api-keys/current}). */
@Command(
    name = "whoami",
    mixinStandardHelpOptions = true,
    description = "Show the API key in use: its id, name, role and workspace (never the secret).",
    footer = {"", "Example:", "  agentauth whoami --profile ci"})
final class WhoamiCommand extends ApiCommand {
  WhoamiCommand(Cli cli) {
    super(cli);
  }

  @Override
  int run(AgentAuthClient client) {
    ApiKey key = client.apiKeys().current();
    if (json) {
      printJson(key);
      return AgentAuthCli.EXIT_OK;
    }
    Cli.Connection c = connection();
    new Table("FIELD", "VALUE")
        .row("base_url", c.baseUrl())
        .row("profile", c.profile())
        .row("workspace_id", key.workspaceId())
        .row("key_id", key.keyId())
        .row("name", key.name())
        .row("role", key.role())
        .row("approver_id", key.approverId())
        .row("prefix", key.prefix())
        .row("created_at", key.createdAt())
        .row("expires_at", key.expiresAt())
        .print(cli.out());
    return AgentAuthCli.EXIT_OK;
  }
}
