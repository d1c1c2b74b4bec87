package dev.agentauth.verifier.cli;

import dev.agentauth.verifier.ReceiptVerifier;
import dev.agentauth.verifier.log.LogVerificationException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code agentauth-verify verify}: verifies receipt files, and optionally their chains. */
@Command(
    name = "verify",
    mixinStandardHelpOptions = true,
    versionProvider = VerifyCli.Version.class,
    sortOptions = false,
    usageHelpAutoWidth = true,
    description = {
      "Verifies agentauth receipts offline against a workspace's keys document.",
      "A FILE holds one receipt (a JSON object), a JSON array of receipts, or NDJSON (one"
          + " receipt per line; blank lines ignored). '-' reads standard input.",
      "A receipt may also be given as the service's GET /v1/receipts/{id} answer,"
          + " {\"status\":\"signed\",\"receipt\":{...}}; an answer for a receipt not signed yet,"
          + " {\"status\":\"pending\",...}, is reported as such (fetch it again once signed).",
      "The report ends with one line giving the verdict of the whole run, RESULT VALID or"
          + " RESULT INVALID, then the counts.",
      "NDJSON is read and verified a window of receipts at a time and the report printed as it"
          + " goes, so memory does not grow with the file (with --chain, a few fields per"
          + " receipt are kept for the chain checks); a JSON array is read whole.",
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:every receipt is valid (and every chain, with --chain)",
      "1:some receipt or chain is invalid, or with --log: a receipt is not in the log, a"
          + " receipt of the chains given is missing (--complete), or the checkpoint does not"
          + " verify",
      "2:usage or input error (missing or unreadable file, malformed JSON, bad keys document,"
          + " keys URL refused, unreachable or not 200, malformed pin, no pinned key in the"
          + " keys document), or out of memory; the report printed so far is incomplete; with"
          + " --json, standard output holds {\"verdict\":\"error\",...} instead of a report",
    })
final class VerifyCommand implements Callable<Integer> {

  /** More threads than this is a typing error, not a machine. */
  static final int MAX_THREADS = 1024;

  /** At most this many receipts are read ahead and verified at once. */
  static final int WINDOW_RECEIPTS = 2048;

  /** About this many characters of receipt text are read ahead at most (one longer line aside). */
  static final long WINDOW_CHARS = 4L << 20;

  /** Where the keys document comes from: a file, or the service's public keys endpoint. */
  static final class KeysSource {
    @Option(
        names = "--keys",
        paramLabel = "FILE",
        required = true,
        description =
            "The workspace's keys document: the GET /v1/workspaces/{id}/keys response, saved"
                + " from a source you trust ('-' for standard input).")
    String file;

    @ArgGroup(exclusive = false, multiplicity = "1")
    RemoteKeys remote;
  }

  /** {@code --keys-url} with {@code --workspace}. */
  static final class RemoteKeys {
    @Option(
        names = "--keys-url",
        paramLabel = "BASE_URL",
        required = true,
        description =
            "Instead of a keys file, fetch BASE_URL/v1/workspaces/ID/keys. Whoever serves the keys"
                + " decides what verifies: https:// only (http:// only to localhost,"
                + " 127.0.0.0/8 or ::1), no redirects followed, at most 1 MiB, 10 s to connect"
                + " and 30 s in all; pin the keys you expect with --trusted-key-fingerprint.")
    String baseUrl;

    @Option(
        names = "--workspace",
        paramLabel = "ID",
        required = true,
        description = "The workspace whose keys --keys-url fetches.")
    String workspace;
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  KeysSource keys;

  @Option(
      names = "--trusted-key-fingerprint",
      paramLabel = "SHA256:DIGEST",
      description =
          "Trust only the key with this fingerprint (repeatable): SHA256: and the unpadded"
              + " base64url SHA-256 of the raw 32-byte public key, as 'keys fingerprint' prints"
              + " it. A receipt signed by another key of the keys document fails at"
              + " KEY_NOT_FOUND; a keys document holding none of these keys is an input error.")
  List<String> pins = new ArrayList<>();

  @Option(
      names = "--threads",
      paramLabel = "N",
      description =
          "Verify on N threads (default: one per available processor). The report is the same"
              + " whatever N.")
  Integer threads;

  @Option(
      names = "--chain",
      description =
          "Also group the receipts by authorization_id and verify each group as one"
              + " authorization's chain (in input order, which should be issuance order):"
              + " one create receipt first, at most one revoke, issued_at never decreasing,"
              + " nothing but denials after the revocation.")
  boolean chain;

  @Option(
      names = "--json",
      description =
          "Print one JSON document (receipts, chains, summary, verdict) instead of text lines;"
              + " on a usage or input error, a JSON error document (verdict \"error\").")
  boolean json;

  @Option(
      names = "--log",
      paramLabel = "BASE_URL",
      description =
          "Also check that each receipt is in the workspace's receipt log on this server: fetch"
              + " its checkpoint (signature checked against the keys document) and an inclusion"
              + " proof per receipt. Needs an API key (AGENTAUTH_API_KEY or --api-key-file).")
  String logUrl;

  @Option(
      names = "--complete",
      description =
          "With --log and --chain: fetch every log entry, recompute the root, and report every"
              + " receipt the log holds for the authorizations given that the input lacks.")
  boolean complete;

  @Option(
      names = "--witness-key",
      paramLabel = "VKEY",
      description = "With --log: a witness's public key whose cosignatures count (repeatable).")
  List<String> witnessKeys = new ArrayList<>();

  @Option(
      names = "--witness-quorum",
      paramLabel = "N",
      description = "With --log: require a checkpoint cosigned by N of the --witness-key.")
  int quorum;

  @Option(
      names = "--api-key-file",
      paramLabel = "FILE",
      description = "With --log: the API key file (mode 600); default AGENTAUTH_API_KEY.")
  Path apiKeyFile;

  @Parameters(
      arity = "1..*",
      paramLabel = "FILE",
      description = "Receipt files; '-' for standard input.")
  List<String> files;

  private final Clock clock;
  private final InputStream stdin;
  private final PrintWriter out;
  private final PrintWriter err;
  private final KeysFetcher fetcher;
  private final int processors;
  private final Function<String, String> env;

  /** The receipt log's context with {@code --log}, built with the keys. */
  private LogOptions.Context logContext;

  /** The report being written, once the inputs are checked and the keys read. */
  private Reports.Writer report;

  /** What is being read or verified, for a resource-exhaustion message. */
  private String reading = "the inputs";

  VerifyCommand(
      Clock clock,
      InputStream stdin,
      PrintWriter out,
      PrintWriter err,
      KeysFetcher fetcher,
      int processors,
      Function<String, String> env) {
    this.env = env;
    this.clock = clock;
    this.stdin = stdin;
    this.out = out;
    this.err = err;
    this.fetcher = fetcher;
    this.processors = processors;
  }

  @Override
  public Integer call() {
    try {
      int n = threads != null ? threads : processors;
      if (n < 1 || n > MAX_THREADS) {
        throw new InputException(
            "--threads must be between 1 and " + MAX_THREADS + "; got " + threads);
      }
      KeysLoader.checkPins(pins);
      checkInputs();
      checkLogOptions();
      ExecutorService pool = n > 1 ? Executors.newFixedThreadPool(n, VerifyCommand::worker) : null;
      try {
        return verify(pool);
      } finally {
        if (pool != null) {
          pool.shutdownNow();
        }
      }
    } catch (InputException e) {
      return fail(VerifyCli.PROGRAM + ": " + Reports.safe(e.getMessage()));
    } catch (OutOfMemoryError e) {
      // The window and the chains are unreachable once the stack has unwound: a line fits.
      return fail(VerifyCli.outOfMemory("verifying " + Reports.safe(reading)));
    } catch (StackOverflowError e) {
      return fail(VerifyCli.stackOverflow("verifying " + Reports.safe(reading)));
    }
  }

  /**
   * Reports an error that ends the run: its line on standard error, and with {@code --json} the
   * error document on standard output too, unless the report had begun there (a run that runs out
   * of memory halfway through its report leaves that report incomplete).
   */
  private int fail(String line) {
    err.println(line);
    if (json && (report == null || !report.started())) {
      Reports.error(VerifyCli.message(line), out);
    }
    return VerifyCli.EXIT_USAGE;
  }

  /**
   * Reads every input twice: once to check that it is made of receipts (so an input error anywhere
   * is reported before any result, as when inputs were read whole), then to verify it through the
   * audit. Each pass holds at most {@link #WINDOW_RECEIPTS} receipts and about {@link
   * #WINDOW_CHARS} characters of receipt text at once.
   */
  private int verify(Executor executor) throws InputException {
    List<String> paths = new ArrayList<>(files.size());
    List<String> names = new ArrayList<>(files.size());
    Path spooled = null;
    try {
      for (String file : files) {
        if ("-".equals(file)) {
          reading = "standard input";
          spooled = ReceiptStream.spool(stdin);
          paths.add(spooled.toString());
          names.add(ReceiptInputs.STDIN);
        } else {
          paths.add(file);
          names.add(file);
        }
      }
      for (int i = 0; i < paths.size(); i++) {
        reading = names.get(i);
        try (ReceiptStream input = ReceiptStream.open(paths.get(i), names.get(i), i)) {
          for (List<ReceiptStream.Item> window = input.next(WINDOW_RECEIPTS, WINDOW_CHARS);
              !window.isEmpty();
              window = input.next(WINDOW_RECEIPTS, WINDOW_CHARS)) {
            Audit.check(window, executor);
          }
        }
      }
      reading = "the keys document";
      ReceiptVerifier verifier = verifier();
      report = json ? Reports.json(out) : Reports.text(out);
      Audit audit = new Audit(verifier, chain, executor, report);
      for (int i = 0; i < paths.size(); i++) {
        reading = names.get(i);
        try (ReceiptStream input = ReceiptStream.open(paths.get(i), names.get(i), i)) {
          for (List<ReceiptStream.Item> window = input.next(WINDOW_RECEIPTS, WINDOW_CHARS);
              !window.isEmpty();
              window = input.next(WINDOW_RECEIPTS, WINDOW_CHARS)) {
            audit.verify(window);
          }
        }
      }
      if (audit.receipts() == 0) {
        throw new InputException("no receipts found in " + String.join(", ", files));
      }
      reading = String.join(", ", names) + " (checking the chains)";
      Audit.Result result = audit.finish(names);
      report.finish(result);
      boolean logOk = logContext == null || checkLog(paths, names, executor);
      return result.ok() && logOk ? VerifyCli.EXIT_VALID : VerifyCli.EXIT_INVALID;
    } finally {
      if (spooled != null) {
        try {
          Files.deleteIfExists(spooled);
        } catch (IOException e) {
          // Deleted on exit instead.
        }
      }
    }
  }

  /** Runs {@link LogCheck} over the inputs once more; whether every receipt is in the log. */
  private boolean checkLog(List<String> paths, List<String> names, Executor executor)
      throws InputException {
    LogCheck check = new LogCheck(logContext, complete, executor, out);
    try {
      reading = "the log's checkpoint";
      check.start();
      for (int i = 0; i < paths.size(); i++) {
        reading = names.get(i) + " (checking the log)";
        try (ReceiptStream input = ReceiptStream.open(paths.get(i), names.get(i), i)) {
          for (List<ReceiptStream.Item> window = input.next(WINDOW_RECEIPTS, WINDOW_CHARS);
              !window.isEmpty();
              window = input.next(WINDOW_RECEIPTS, WINDOW_CHARS)) {
            check.receipts(window);
          }
        }
      }
      return check.finish();
    } catch (LogVerificationException e) {
      out.println("LOG RESULT INVALID: " + Reports.safe(e.getMessage()));
      return false;
    }
  }

  /** Checks the {@code --log} options' combinations before anything is read. */
  private void checkLogOptions() throws InputException {
    if (logUrl == null) {
      if (complete || !witnessKeys.isEmpty() || quorum != 0 || apiKeyFile != null) {
        throw new InputException(
            "--complete, --witness-key, --witness-quorum and --api-key-file need --log");
      }
      return;
    }
    if (json) {
      throw new InputException("--log does not support --json yet: use the text report");
    }
    if (complete && !chain) {
      throw new InputException("--complete needs --chain: it checks the chains given are complete");
    }
    LogOptions.witnesses(witnessKeys, quorum);
    KeysFetcher.endpoint(logUrl, "--log", "/");
    if (LogOptions.apiKey(apiKeyFile, env) == null) {
      throw new InputException(
          "--log needs an API key for the inclusion proofs and entries: set AGENTAUTH_API_KEY or"
              + " pass --api-key-file FILE");
    }
  }

  /** The pool's threads are daemons: they never keep the JVM alive. */
  private static Thread worker(Runnable task) {
    Thread t = new Thread(task, "agentauth-verify-worker");
    t.setDaemon(true);
    return t;
  }

  /** Checks that standard input is named once at most. */
  private void checkInputs() throws InputException {
    long stdinUses = files.stream().filter("-"::equals).count();
    if ("-".equals(keys.file)) {
      stdinUses++;
    }
    if (stdinUses > 1) {
      throw new InputException("standard input ('-') can be given only once");
    }
  }

  private ReceiptVerifier verifier() throws InputException {
    KeysLoader.Document document =
        keys.file != null
            ? KeysLoader.fromFile(keys.file, stdin)
            : KeysLoader.fromUrl(keys.remote.baseUrl, keys.remote.workspace, fetcher);
    ReceiptVerifier verifier = KeysLoader.verifier(document, clock, pins);
    if (logUrl != null) {
      logContext =
          LogOptions.context(
              document,
              verifier.workspaceId(),
              pins,
              LogOptions.witnesses(witnessKeys, quorum),
              quorum,
              LogOptions.apiKey(apiKeyFile, env),
              logUrl,
              fetcher);
    }
    return verifier;
  }
}
