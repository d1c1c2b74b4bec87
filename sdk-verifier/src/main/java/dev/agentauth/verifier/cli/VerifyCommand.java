package dev.agentauth.verifier.cli;

import dev.agentauth.verifier.KeysDocumentException;
import dev.agentauth.verifier.ReceiptVerifier;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.URI;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
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
          + " {\"status\":\"signed\",\"receipt\":{...}}.",
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:every receipt is valid (and every chain, with --chain)",
      "1:some receipt or chain is invalid",
      "2:usage or input error (missing or unreadable file, malformed JSON, bad keys document,"
          + " keys URL unreachable or not 200)",
    })
final class VerifyCommand implements Callable<Integer> {

  /** Where the keys document comes from: a file, or the service's public keys endpoint. */
  static final class KeysSource {
    @Option(
        names = "--keys",
        paramLabel = "FILE",
        required = true,
        description =
            "The workspace's keys document: the GET /v1/workspaces/{id}/keys response, saved"
                + " from a source you trust.")
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
            "Instead of --keys, fetch BASE_URL/v1/workspaces/ID/keys. Whoever serves the keys"
                + " decides what verifies: use https:// to a host you trust.")
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
      names = "--chain",
      description =
          "Also group the receipts by authorization_id and verify each group as one"
              + " authorization's chain (in input order, which should be issuance order):"
              + " one create receipt first, at most one revoke, issued_at never decreasing,"
              + " nothing but denials after the revocation.")
  boolean chain;

  @Option(
      names = "--json",
      description = "Print one JSON document (receipts, chains, summary) instead of text lines.")
  boolean json;

  @Parameters(
      arity = "1..*",
      paramLabel = "FILE",
      description = "Receipt files; '-' for standard input.")
  List<String> files;

  private final Clock clock;
  private final InputStream stdin;
  private final PrintWriter out;
  private final PrintWriter err;

  VerifyCommand(Clock clock, InputStream stdin, PrintWriter out, PrintWriter err) {
    this.clock = clock;
    this.stdin = stdin;
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() {
    try {
      List<ReceiptEntry> entries = readInputs();
      ReceiptVerifier verifier = verifier();
      Audit.Result result = new Audit(verifier, chain).run(entries);
      if (json) {
        Reports.json(result, out);
      } else {
        Reports.text(result, out);
      }
      return result.ok() ? VerifyCli.EXIT_VALID : VerifyCli.EXIT_INVALID;
    } catch (InputException e) {
      err.println(VerifyCli.PROGRAM + ": " + Reports.safe(e.getMessage()));
      return VerifyCli.EXIT_USAGE;
    }
  }

  private List<ReceiptEntry> readInputs() throws InputException {
    if (files.stream().filter("-"::equals).count() > 1) {
      throw new InputException("standard input ('-') can be given only once");
    }
    List<ReceiptEntry> entries = new ArrayList<>();
    for (String file : files) {
      entries.addAll(ReceiptInputs.read(file, stdin));
    }
    if (entries.isEmpty()) {
      throw new InputException("no receipts found in " + String.join(", ", files));
    }
    return entries;
  }

  private ReceiptVerifier verifier() throws InputException {
    String source;
    String document;
    URI uri = null;
    if (keys.file != null) {
      source = keys.file;
      document =
          ReceiptInputs.decode(keys.file, ReceiptInputs.readFile(keys.file, "keys document"));
    } else {
      uri = KeysFetcher.keysUri(keys.remote.baseUrl, keys.remote.workspace);
      if (KeysFetcher.insecure(uri)) {
        err.println(
            VerifyCli.PROGRAM
                + ": warning: fetching keys over plain HTTP from "
                + uri
                + "; anyone on the network path could substitute them (use https:// or --keys)");
      }
      source = uri.toString();
      document = KeysFetcher.fetch(uri);
    }
    ReceiptVerifier verifier;
    try {
      verifier = ReceiptVerifier.builder().keysJson(document).clock(clock).build();
    } catch (KeysDocumentException e) {
      throw new InputException(source + ": " + e.getMessage());
    }
    if (uri != null && !verifier.workspaceId().equals(keys.remote.workspace)) {
      throw new InputException(
          "the keys document at "
              + uri
              + " is for workspace \""
              + verifier.workspaceId()
              + "\", not \""
              + keys.remote.workspace
              + "\"");
    }
    return verifier;
  }
}
