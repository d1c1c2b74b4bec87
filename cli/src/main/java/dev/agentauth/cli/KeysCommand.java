package dev.agentauth.cli;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.ApiKeyCreateParams;
import dev.agentauth.client.ListParams;
import dev.agentauth.model.ApiKey;
import dev.agentauth.model.ApiKeyRole;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code agentauth keys}: the workspace's API keys ({@code /v1/api-keys}, a {@code full} key). */
@Command(
    name = "keys",
    mixinStandardHelpOptions = true,
    description = "Create, list and revoke the workspace's API keys (needs a 'full' key).",
    footer = {"", "Example:", "  agentauth keys create --role agent --name mcp-prod"},
    subcommands = {KeysCommand.Create.class, KeysCommand.ListKeys.class, KeysCommand.Revoke.class})
final class KeysCommand {

  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description = {
        "Create an API key. Its secret is printed once, here, and never again: store it now.",
        "Roles: full, app, agent, tool_server, approver (needs --approver-id), auditor."
      },
      footer = {
        "",
        "Examples:",
        "  agentauth keys create --role agent --name mcp-prod",
        "  agentauth keys create --role approver --approver-id mgr_7 --expires-in 90d"
      })
  static final class Create extends ApiCommand {
    @Option(
        names = "--role",
        paramLabel = "ROLE",
        defaultValue = "full",
        description = "Role (default full).")
    String role;

    @Option(names = "--name", paramLabel = "NAME", description = "A name to recognise the key.")
    String name;

    @Option(
        names = "--approver-id",
        paramLabel = "ID",
        description = "For the approver role: the id its resolutions are recorded under.")
    String approverId;

    @Option(
        names = "--expires-in",
        paramLabel = "DURATION",
        converter = Durations.class,
        description = "Expire after this long (30d, 12h, 15m).")
    Duration expiresIn;

    Create(Cli cli) {
      super(cli);
    }

    @Override
    int run(AgentAuthClient client) {
      ApiKeyCreateParams params =
          approverId != null
              ? ApiKeyCreateParams.approver(approverId)
              : ApiKeyCreateParams.of(ApiKeyRole.of(role));
      if (approverId != null && !"approver".equals(role)) {
        throw CliException.usage("--approver-id is for --role approver only");
      }
      if (name != null) {
        params = params.withName(name);
      }
      if (expiresIn != null) {
        params = params.withExpiresAt(Instant.now().plus(expiresIn));
      }
      ApiKey key = client.apiKeys().create(params);
      if (json) {
        printJson(key);
      } else {
        new Table("KEY_ID", "ROLE", "NAME", "EXPIRES_AT")
            .row(key.keyId(), key.role(), key.name(), key.expiresAt())
            .print(cli.out());
        cli.out().println();
        cli.out().println("API key (shown only now; store it, e.g. in a file for --api-key-file):");
        cli.out().println(key.apiKey());
      }
      return AgentAuthCli.EXIT_OK;
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "List the workspace's API keys, revoked ones included (never their secrets).",
      footer = {"", "Example:", "  agentauth keys list --json"})
  static final class ListKeys extends ApiCommand {
    ListKeys(Cli cli) {
      super(cli);
    }

    @Override
    int run(AgentAuthClient client) {
      List<ApiKey> keys = new ArrayList<>();
      for (ApiKey k : client.apiKeys().listAutoPaging(ListParams.none().withLimit(100))) {
        keys.add(k.withoutSecret());
      }
      if (json) {
        printJson(java.util.Map.of("api_keys", keys));
        return AgentAuthCli.EXIT_OK;
      }
      Table t =
          new Table("KEY_ID", "PREFIX", "ROLE", "NAME", "CREATED_AT", "EXPIRES_AT", "REVOKED_AT");
      for (ApiKey k : keys) {
        t.row(
            k.keyId(), k.prefix(), k.role(), k.name(), k.createdAt(), k.expiresAt(), k.revokedAt());
      }
      t.print(cli.out());
      return AgentAuthCli.EXIT_OK;
    }
  }

  @Command(
      name = "revoke",
      mixinStandardHelpOptions = true,
      description = "Revoke an API key by its key id: it answers 401 from then on.",
      footer = {"", "Example:", "  agentauth keys revoke key_01hx..."})
  static final class Revoke extends ApiCommand {
    @Parameters(paramLabel = "KEY_ID", description = "The key id (from 'keys list').")
    String keyId;

    Revoke(Cli cli) {
      super(cli);
    }

    @Override
    int run(AgentAuthClient client) {
      ApiKey key = client.apiKeys().revoke(keyId).withoutSecret();
      if (json) {
        printJson(key);
      } else {
        cli.out().println("Revoked " + key.keyId() + " at " + key.revokedAt());
      }
      return AgentAuthCli.EXIT_OK;
    }
  }
}
