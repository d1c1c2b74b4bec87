package dev.agentauth.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;

/**
 * The {@code agentauth} command line: operate a workspace (API keys, grants, bundles, checks,
 * escalations, confirmations) and export evidence (signed receipts) without writing code. It runs
 * on the typed client of {@code sdk-core}.
 *
 * <pre>
 * agentauth login --base-url https://agentauth.example.com --api-key-file ~/.agentauth-key
 * agentauth grants create -f grant.yaml
 * agentauth receipts export --authorization auth_01H... \
 *     | java -jar agentauth-verify.jar verify --keys keys.json --chain -
 * </pre>
 *
 * <p>Exit status, as the verifier's: 0 success (for {@code check}: every scope allowed), 1 a
 * failure (the service refused, could not be reached, a receipt stayed pending, a check was not
 * allowed), 2 a usage or input error (unknown option, invalid file, a request the service rejected
 * as invalid). Errors are one readable line on standard error, never a stack trace.
 */
public final class AgentAuthCli {
  /** The command's name in messages. */
  static final String PROGRAM = "agentauth";

  static final int EXIT_OK = 0;
  static final int EXIT_FAILURE = 1;
  static final int EXIT_USAGE = 2;

  private final Cli cli;

  AgentAuthCli(Cli cli) {
    this.cli = cli;
  }

  /**
   * Runs the command line and exits the JVM with its status.
   *
   * @param args the arguments, such as {@code receipts list --authorization auth_1}
   */
  public static void main(String[] args) {
    Cli cli =
        new Cli(
            System.getenv(),
            System.in,
            System.out,
            System.err,
            Cli.detectStderrTerminal(),
            Cli.Pause.system());
    System.exit(new AgentAuthCli(cli).run(args));
  }

  /** Builds the picocli command tree for {@code cli}. */
  static CommandLine commandLine(Cli cli) {
    CommandLine commandLine = new CommandLine(new Root(cli), new Factory(cli));
    commandLine.setOut(cli.out());
    commandLine.setErr(cli.err());
    commandLine.setParameterExceptionHandler(
        (e, arguments) -> {
          CommandLine failed = e.getCommandLine();
          String message = String.valueOf(e.getMessage());
          if (message.startsWith("Error: ")) {
            message = message.substring("Error: ".length());
          }
          failed.getErr().println(PROGRAM + ": " + message);
          failed
              .getErr()
              .println("Run '" + failed.getCommandSpec().qualifiedName() + " --help' for usage.");
          return EXIT_USAGE;
        });
    commandLine.setExecutionExceptionHandler(
        (e, failed, parseResult) -> {
          failed.getErr().println(PROGRAM + ": internal error: " + e);
          return EXIT_FAILURE;
        });
    return commandLine;
  }

  /** Runs the command line and returns its exit status; never throws, never exits. */
  int run(String... args) {
    try {
      return commandLine(cli).execute(args);
    } finally {
      cli.out().flush();
      cli.err().flush();
    }
  }

  /** Creates commands, handing those that take one the invocation's {@link Cli}. */
  private static final class Factory implements CommandLine.IFactory {
    private final Cli cli;
    private final CommandLine.IFactory fallback = CommandLine.defaultFactory();

    Factory(Cli cli) {
      this.cli = cli;
    }

    @Override
    public <K> K create(Class<K> type) throws Exception {
      try {
        return type.getDeclaredConstructor(Cli.class).newInstance(cli);
      } catch (NoSuchMethodException e) {
        return fallback.create(type);
      }
    }
  }

  /** The top-level command: dispatches to its subcommands. */
  @Command(
      name = PROGRAM,
      mixinStandardHelpOptions = true,
      versionProvider = Version.class,
      description = {
        "Operate an agentauth workspace and export its signed receipts.",
        "",
        "Connection: --profile NAME (or AGENTAUTH_PROFILE) picks a profile saved by 'login';"
            + " without one, AGENTAUTH_BASE_URL and AGENTAUTH_API_KEY are used, else the"
            + " profile 'default'.",
        "Exit status: 0 ok, 1 failure, 2 usage or bad input."
      },
      footer = {
        "",
        "Example:",
        "  agentauth login --base-url https://agentauth.example.com --api-key-env KEY",
        "  agentauth receipts export --authorization auth_01H... > chain.ndjson"
      },
      subcommands = {
        CommandLine.HelpCommand.class,
        LoginCommand.class,
        WhoamiCommand.class,
        KeysCommand.class,
        GrantsCommand.class,
        BundlesCommand.class,
        CheckCommand.class,
        EscalationsCommand.class,
        ConfirmationsCommand.class,
        ReceiptsCommand.class,
        SigningKeysCommand.class,
        CompletionCommand.class
      })
  static final class Root implements java.util.concurrent.Callable<Integer> {
    private final Cli cli;

    Root(Cli cli) {
      this.cli = cli;
    }

    @Override
    public Integer call() {
      cli.err().println(PROGRAM + ": missing command");
      cli.err().println("Run '" + PROGRAM + " --help' for usage.");
      return EXIT_USAGE;
    }
  }

  /** The version from the jar manifest ({@code Implementation-Version}). */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = AgentAuthCli.class.getPackage().getImplementationVersion();
      return new String[] {PROGRAM + " " + (version != null ? version : "(development build)")};
    }
  }
}
