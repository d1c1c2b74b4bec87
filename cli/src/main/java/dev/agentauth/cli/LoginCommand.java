package dev.agentauth.cli;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.model.ApiKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code agentauth login}: saves a profile (base URL and where its API key is) after checking the
 * key with {@code GET /v1/api-keys/current}. The key itself is never an argument.
 */
@Command(
    name = "login",
    mixinStandardHelpOptions = true,
    description = {
      "Save a profile: the base URL and where its API key comes from, checked against the service.",
      "The key is never an argument: give a file, an environment variable name, or standard input."
          + " A file or variable is stored as a reference; a key from standard input is stored in"
          + " credentials.json (mode 0600) beside config.json."
    },
    footer = {
      "",
      "Examples:",
      "  agentauth login --base-url https://agentauth.example.com --api-key-file k.txt",
      "  agentauth login --profile ci --base-url https://agentauth.example.com \\",
      "    --api-key-env AGENTAUTH_CI_KEY",
      "  pass show agentauth \\",
      "    | agentauth login --base-url https://agentauth.example.com --api-key-stdin"
    })
final class LoginCommand extends ApiCommand {

  @Option(
      names = "--base-url",
      required = true,
      paramLabel = "URL",
      description = "The service's base URL, e.g. https://agentauth.example.com.")
  String baseUrl;

  @ArgGroup(exclusive = true, multiplicity = "1")
  KeySource source;

  static final class KeySource {
    @Option(names = "--api-key-file", paramLabel = "FILE", description = "File holding the key.")
    Path file;

    @Option(
        names = "--api-key-env",
        paramLabel = "NAME",
        description = "Environment variable holding the key.")
    String env;

    @Option(names = "--api-key-stdin", description = "Read the key from standard input.")
    boolean stdin;
  }

  private String name;
  private Profiles.Profile saved;
  private String storedKey;

  LoginCommand(Cli cli) {
    super(cli);
  }

  @Override
  void validate() {
    name = profile != null ? profile : Cli.DEFAULT_PROFILE;
    String key;
    if (source.file != null) {
      Path file = source.file.toAbsolutePath().normalize();
      saved = new Profiles.Profile(baseUrl, file.toString(), null, false);
    } else if (source.env != null) {
      saved = new Profiles.Profile(baseUrl, null, source.env, false);
    } else {
      try {
        key = new String(cli.in().readNBytes(4096), StandardCharsets.UTF_8).strip();
      } catch (IOException e) {
        throw CliException.usage("cannot read the API key from standard input: " + e.getMessage());
      }
      if (key.isEmpty()) {
        throw CliException.usage("expected an API key on standard input, found nothing");
      }
      storedKey = key;
      saved = new Profiles.Profile(baseUrl, null, null, true);
    }
  }

  @Override
  Cli.Connection connection() {
    Profiles profiles = cli.profiles();
    String key = storedKey != null ? storedKey : profiles.apiKey(name, saved, cli);
    return new Cli.Connection(name, baseUrl, key);
  }

  @Override
  int run(AgentAuthClient client) {
    ApiKey current = client.apiKeys().current();
    Profiles profiles = cli.profiles();
    profiles.put(name, saved, storedKey);
    if (json) {
      printJson(current);
    } else {
      cli.out()
          .println(
              "Logged in as "
                  + ApiCommand.cell(current.name())
                  + " ("
                  + current.keyId()
                  + ", role "
                  + current.role()
                  + ") in workspace "
                  + current.workspaceId()
                  + "; profile '"
                  + name
                  + "' saved in "
                  + profiles.configFile());
      if (storedKey != null) {
        cli.out().println("The key is stored in " + profiles.credentialsFile() + " (mode 0600).");
      }
    }
    return AgentAuthCli.EXIT_OK;
  }
}
