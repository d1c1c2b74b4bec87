package dev.agentauth.verifier.cli;

import dev.agentauth.verifier.ReceiptVerifier;
import java.io.InputStream;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code agentauth-verify keys}: commands about keys documents; only dispatches. */
@Command(
    name = "keys",
    mixinStandardHelpOptions = true,
    versionProvider = VerifyCli.Version.class,
    description = "Commands about a workspace's keys document.")
final class KeysCommand implements Callable<Integer> {

  private final PrintWriter err;

  KeysCommand(PrintWriter err) {
    this.err = err;
  }

  @Override
  public Integer call() {
    err.println(
        VerifyCli.PROGRAM
            + ": missing command: use '"
            + VerifyCli.PROGRAM
            + " keys fingerprint KEYS_FILE'");
    err.println("Run '" + VerifyCli.PROGRAM + " keys --help' for usage.");
    return VerifyCli.EXIT_USAGE;
  }

  /**
   * {@code agentauth-verify keys fingerprint}: prints {@code <key_id> SHA256:<digest>} for every
   * key of a keys document, in the document's order, or with {@code --json} one JSON document.
   */
  @Command(
      name = "fingerprint",
      mixinStandardHelpOptions = true,
      versionProvider = VerifyCli.Version.class,
      sortOptions = false,
      usageHelpAutoWidth = true,
      description = {
        "Prints the fingerprint of every key of a keys document, one line per key:"
            + " KEY_ID, two spaces, SHA256: and the unpadded base64url SHA-256 of the raw 32-byte"
            + " public key. These are the values --trusted-key-fingerprint takes.",
        "Compare them with fingerprints obtained over another channel before pinning them.",
      },
      exitCodeListHeading = "%nExit codes:%n",
      exitCodeList = {
        "0:fingerprints printed",
        "2:usage or input error (unreadable file, bad keys document, keys URL refused,"
            + " unreachable or not 200)",
      })
  static final class Fingerprint implements Callable<Integer> {

    @Parameters(
        arity = "0..1",
        paramLabel = "KEYS_FILE",
        description =
            "The keys document (the GET /v1/workspaces/{id}/keys response); '-' for standard"
                + " input.")
    String file;

    @ArgGroup(exclusive = false)
    VerifyCommand.RemoteKeys remote;

    @Option(
        names = "--json",
        description = "Print one JSON document (workspace_id, keys with key_id and fingerprint).")
    boolean json;

    private final InputStream stdin;
    private final PrintWriter out;
    private final PrintWriter err;
    private final KeysFetcher fetcher;

    Fingerprint(InputStream stdin, PrintWriter out, PrintWriter err, KeysFetcher fetcher) {
      this.stdin = stdin;
      this.out = out;
      this.err = err;
      this.fetcher = fetcher;
    }

    @Override
    public Integer call() {
      try {
        if ((file == null) == (remote == null)) {
          throw new InputException(
              "give either a keys document file (or '-') or --keys-url BASE_URL --workspace ID,"
                  + " not both or neither");
        }
        KeysLoader.Document document =
            file != null
                ? KeysLoader.fromFile(file, stdin)
                : KeysLoader.fromUrl(remote.baseUrl, remote.workspace, fetcher);
        // The clock plays no part: nothing is verified.
        ReceiptVerifier verifier = KeysLoader.verifier(document, Clock.systemUTC(), List.of());
        Reports.fingerprints(verifier.workspaceId(), verifier.keyFingerprints(), json, out);
        return VerifyCli.EXIT_VALID;
      } catch (InputException e) {
        err.println(VerifyCli.PROGRAM + ": " + Reports.safe(e.getMessage()));
        return VerifyCli.EXIT_USAGE;
      }
    }
  }
}
