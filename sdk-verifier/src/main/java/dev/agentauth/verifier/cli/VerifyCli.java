package dev.agentauth.verifier.cli;

import java.io.BufferedWriter;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;

/**
 * The auditor command line, {@code agentauth-verify}: verifies receipts offline against a
 * workspace's keys document, without any API key.
 *
 * <pre>
 * java -jar agentauth-verify.jar verify --keys keys.json [--chain] [--json] [--threads N] FILE...
 * java -jar agentauth-verify.jar verify --keys-url https://HOST --workspace WS_ID \
 *     [--trusted-key-fingerprint SHA256:...]... FILE...
 * java -jar agentauth-verify.jar keys fingerprint [--json] keys.json
 * java -jar agentauth-verify.jar log audit --state FILE --keys keys.json --log-url https://HOST
 * java -jar agentauth-verify.jar log witness --key FILE --state FILE --keys keys.json --log-url ...
 * java -jar agentauth-verify.jar log witness-keygen --name NAME --out FILE
 * </pre>
 *
 * <p>A {@code FILE} holds one receipt (a JSON object), a JSON array of receipts, or NDJSON (one
 * receipt per line, blank lines ignored); {@code -} reads standard input. {@code --chain} also
 * verifies each authorization's receipt chain; {@code --json} prints one JSON document instead of
 * text; {@code --threads} sets how many threads verify (one per processor by default; the report is
 * the same whatever the number). {@code --trusted-key-fingerprint} pins the keys to trust; {@code
 * keys fingerprint} prints the fingerprint of every key of a keys document. Exit status: 0 when
 * everything is valid, 1 when some receipt or chain is invalid, 2 on a usage or input error or when
 * the JVM runs out of heap or stack (reported in one line on standard error, never a stack trace).
 */
public final class VerifyCli {

  /** The command's name in messages. */
  static final String PROGRAM = "agentauth-verify";

  static final int EXIT_VALID = 0;
  static final int EXIT_INVALID = 1;
  static final int EXIT_USAGE = 2;

  private final Clock clock;
  private final InputStream stdin;
  private final PrintWriter out;
  private final PrintWriter err;
  private final KeysFetcher fetcher;
  private final int processors;
  private final Function<String, String> env;

  /**
   * Creates a CLI reading and writing the given streams (UTF-8) and checking {@code issued_at}
   * against {@code clock}. Tests use this; {@link #main} passes the process's streams.
   */
  VerifyCli(Clock clock, InputStream stdin, OutputStream stdout, OutputStream stderr) {
    this(
        clock,
        stdin,
        stdout,
        stderr,
        new KeysFetcher(),
        Runtime.getRuntime().availableProcessors());
  }

  /**
   * Creates a CLI fetching keys with {@code fetcher} (tests shorten its timeouts and limits) and
   * verifying on {@code processors} threads unless {@code --threads} says otherwise.
   */
  VerifyCli(
      Clock clock,
      InputStream stdin,
      OutputStream stdout,
      OutputStream stderr,
      KeysFetcher fetcher,
      int processors) {
    this(clock, stdin, stdout, stderr, fetcher, processors, System::getenv);
  }

  /**
   * Creates a CLI reading environment variables (only {@code AGENTAUTH_API_KEY}) from {@code env}
   * (tests pass a map's {@code get}).
   */
  VerifyCli(
      Clock clock,
      InputStream stdin,
      OutputStream stdout,
      OutputStream stderr,
      KeysFetcher fetcher,
      int processors,
      Function<String, String> env) {
    this.env = Objects.requireNonNull(env, "env");
    this.fetcher = Objects.requireNonNull(fetcher, "fetcher");
    this.processors = processors;
    this.clock = Objects.requireNonNull(clock, "clock");
    this.stdin = Objects.requireNonNull(stdin, "stdin");
    this.out =
        new PrintWriter(
            new BufferedWriter(new OutputStreamWriter(stdout, StandardCharsets.UTF_8)), false);
    this.err = new PrintWriter(new OutputStreamWriter(stderr, StandardCharsets.UTF_8), true);
  }

  /**
   * Runs the command line and exits the JVM with its status (0 valid, 1 invalid, 2 usage or input
   * error, or out of memory).
   *
   * @param args the command-line arguments, such as {@code verify --keys keys.json receipts.json}
   */
  public static void main(String[] args) {
    int status = new VerifyCli(Clock.systemUTC(), System.in, System.out, System.err).run(args);
    System.exit(status);
  }

  /** Runs the command line and returns its exit status; never throws, never exits. */
  int run(String... args) {
    CommandLine commandLine = new CommandLine(new Root(err));
    commandLine.addSubcommand(
        "verify", new VerifyCommand(clock, stdin, out, err, fetcher, processors, env));
    CommandLine keys = new CommandLine(new KeysCommand(err));
    keys.addSubcommand("fingerprint", new KeysCommand.Fingerprint(stdin, out, err, fetcher));
    commandLine.addSubcommand("keys", keys);
    LogCommand.Io io = new LogCommand.Io(stdin, out, err, clock, fetcher, env);
    CommandLine log = new CommandLine(new LogCommand(err));
    log.addSubcommand("audit", new LogCommand.Audit(io));
    log.addSubcommand("witness", new LogCommand.Witness(io));
    log.addSubcommand("witness-keygen", new LogCommand.Keygen(io));
    commandLine.addSubcommand("log", log);
    commandLine.setOut(out);
    commandLine.setErr(err);
    commandLine.setParameterExceptionHandler(
        (e, arguments) -> {
          CommandLine failed = e.getCommandLine();
          String message = String.valueOf(e.getMessage());
          if (message.startsWith("Error: ")) {
            message = message.substring("Error: ".length());
          }
          failed.getErr().println(PROGRAM + ": " + Reports.safe(message));
          failed
              .getErr()
              .println("Run '" + failed.getCommandSpec().qualifiedName() + " --help' for usage.");
          if (wantsJson(failed, arguments)) {
            Reports.error(message, out);
          }
          return EXIT_USAGE;
        });
    commandLine.setExecutionExceptionHandler(
        (e, failed, parseResult) -> {
          String line = PROGRAM + ": internal error: " + Reports.safe(e.toString());
          failed.getErr().println(line);
          if (wantsJson(failed, parseResult.originalArgs().toArray(new String[0]))) {
            Reports.error(message(line), out);
          }
          return EXIT_USAGE;
        });
    try {
      int status = commandLine.execute(args);
      out.flush();
      if (out.checkError()) {
        err.println(PROGRAM + ": cannot write the report to standard output");
        return EXIT_USAGE;
      }
      return status;
    } catch (OutOfMemoryError e) {
      err.println(outOfMemory("running"));
      return EXIT_USAGE;
    } catch (StackOverflowError e) {
      err.println(stackOverflow("running"));
      return EXIT_USAGE;
    } finally {
      out.flush();
      err.flush();
    }
  }

  /**
   * Whether a failed {@code verify} command line asked for JSON: then its error goes to standard
   * output as a JSON document too ({@link Reports#error}).
   */
  private static boolean wantsJson(CommandLine failed, String[] arguments) {
    return failed.getCommand() instanceof VerifyCommand
        && Arrays.asList(arguments).contains("--json");
  }

  /** An error line without the {@code agentauth-verify: } it starts with. */
  static String message(String line) {
    String prefix = PROGRAM + ": ";
    return line.startsWith(prefix) ? line.substring(prefix.length()) : line;
  }

  /** The one line for running out of heap while {@code doing} something. */
  static String outOfMemory(String doing) {
    return PROGRAM
        + ": out of memory "
        + doing
        + " (maximum heap "
        + (Runtime.getRuntime().maxMemory() >> 20)
        + " MiB); run with a larger -Xmx (java -Xmx2g -jar agentauth-verify.jar ...)"
        + " or split the input";
  }

  /** The one line for running out of stack while {@code doing} something. */
  static String stackOverflow(String doing) {
    return PROGRAM
        + ": stack overflow "
        + doing
        + "; run with a larger -Xss (java -Xss8m -jar agentauth-verify.jar ...)";
  }

  /**
   * The top-level command: only dispatches to {@code verify}, {@code keys}, {@code log} and {@code
   * help}.
   */
  @Command(
      name = PROGRAM,
      mixinStandardHelpOptions = true,
      versionProvider = Version.class,
      subcommands = CommandLine.HelpCommand.class,
      description = "Offline verification of agentauth receipts.")
  static final class Root implements Callable<Integer> {
    private final PrintWriter err;

    Root(PrintWriter err) {
      this.err = err;
    }

    @Override
    public Integer call() {
      err.println(PROGRAM + ": missing command: use '" + PROGRAM + " verify --keys FILE FILE...'");
      err.println("Run '" + PROGRAM + " verify --help' for usage.");
      return EXIT_USAGE;
    }
  }

  /** The version from the jar manifest ({@code Implementation-Version}). */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = VerifyCli.class.getPackage().getImplementationVersion();
      return new String[] {PROGRAM + " " + (version != null ? version : "(development build)")};
    }
  }
}
