package dev.agentauth.verifier.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.verifier.KeyFingerprint;
import dev.agentauth.verifier.ReceiptVerifier;
import dev.agentauth.verifier.log.CheckpointVerifier;
import dev.agentauth.verifier.log.LogVerificationException;
import dev.agentauth.verifier.log.VerifiedCheckpoint;
import dev.agentauth.verifier.log.WitnessKey;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/**
 * The options every command that reads the receipt log shares (a picocli mixin): where the keys
 * come from, the server, the witnesses and quorum, the API key. {@link #open} checks them and
 * builds what the command needs.
 */
final class LogOptions {

  /** Where the keys document comes from. */
  static final class KeysSource {
    @Option(
        names = "--keys",
        paramLabel = "FILE",
        required = true,
        description =
            "The workspace's keys document (GET /v1/workspaces/{id}/keys), saved from a source"
                + " you trust ('-' for standard input).")
    String file;

    @Option(
        names = "--keys-url",
        paramLabel = "BASE_URL",
        required = true,
        description =
            "Fetch the keys document from BASE_URL/v1/workspaces/ID/keys instead (needs"
                + " --workspace); pin the keys you expect with --trusted-key-fingerprint.")
    String url;
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  KeysSource keys;

  @Option(
      names = "--log-url",
      paramLabel = "BASE_URL",
      required = true,
      description =
          "The agentauth server's base URL, such as https://agentauth.example.com (https only;"
              + " http only to localhost, 127.0.0.0/8 or ::1; no redirects followed).")
  String logUrl;

  @Option(
      names = "--workspace",
      paramLabel = "ID",
      description = "The workspace (default: the keys document's workspace_id).")
  String workspace;

  @Option(
      names = "--trusted-key-fingerprint",
      paramLabel = "SHA256:DIGEST",
      description =
          "Trust only this key of the keys document to sign checkpoints (repeatable), as 'keys"
              + " fingerprint' prints it.")
  List<String> pins = new ArrayList<>();

  @Option(
      names = "--witness-key",
      paramLabel = "VKEY",
      description =
          "A witness's public key, <name>+<hex key hash>+<base64 key> (repeatable). Only"
              + " cosignatures by these keys count.")
  List<String> witnessKeys = new ArrayList<>();

  @Option(
      names = "--witness-quorum",
      paramLabel = "N",
      description =
          "Require a checkpoint cosigned by at least N of the --witness-key witnesses (default"
              + " 0); the newest such checkpoint is fetched.")
  int quorum;

  @Option(
      names = "--api-key-file",
      paramLabel = "FILE",
      description =
          "A file holding the API key for proofs and entries (mode 600); by default the"
              + " AGENTAUTH_API_KEY environment variable. Never given on the command line.")
  Path apiKeyFile;

  /** What a log command works with once its options are checked. */
  record Context(String workspace, CheckpointVerifier verifier, LogClient client, int quorum) {

    /** Verifies a checkpoint note and its quorum of cosignatures. */
    VerifiedCheckpoint verify(String note, String what) {
      VerifiedCheckpoint v = verifier.verify(note);
      if (v.witnesses().size() < quorum) {
        throw new LogVerificationException(
            what
                + " is cosigned by "
                + v.witnesses().size()
                + " of the given witnesses "
                + v.witnesses()
                + ", fewer than --witness-quorum "
                + quorum
                + (v.ignored().isEmpty()
                    ? ""
                    : "; cosignatures by unknown keys ignored: " + v.ignored()));
      }
      return v;
    }
  }

  /** Checks the options, reads the keys and the API key, and builds the context. */
  Context open(InputStream stdin, Clock clock, KeysFetcher fetcher, Function<String, String> env)
      throws InputException {
    List<WitnessKey> witnesses = witnesses(witnessKeys, quorum);
    KeysLoader.checkPins(pins);
    KeysLoader.Document document;
    if (keys.file != null) {
      document = KeysLoader.fromFile(keys.file, stdin);
    } else {
      if (workspace == null) {
        throw new InputException("--keys-url needs --workspace");
      }
      document = KeysLoader.fromUrl(keys.url, workspace, fetcher);
    }
    ReceiptVerifier receipts = KeysLoader.verifier(document, clock, pins);
    if (workspace != null && !workspace.equals(receipts.workspaceId())) {
      throw new InputException(
          "the keys document is for workspace \""
              + receipts.workspaceId()
              + "\", not --workspace \""
              + workspace
              + "\"");
    }
    return context(
        document,
        receipts.workspaceId(),
        pins,
        witnesses,
        quorum,
        apiKey(apiKeyFile, env),
        logUrl,
        fetcher);
  }

  /** Parses {@code --witness-key} values and checks {@code --witness-quorum} against them. */
  static List<WitnessKey> witnesses(List<String> vkeys, int quorum) throws InputException {
    List<WitnessKey> witnesses = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (String vkey : vkeys) {
      WitnessKey key;
      try {
        key = WitnessKey.parseVkey(vkey.strip());
      } catch (LogVerificationException e) {
        throw new InputException("--witness-key: " + e.getMessage());
      }
      if (!names.add(key.name())) {
        throw new InputException("--witness-key: witness " + key.name() + " is given twice");
      }
      witnesses.add(key);
    }
    if (quorum < 0 || quorum > witnesses.size()) {
      throw new InputException(
          "--witness-quorum must be between 0 and the number of --witness-key ("
              + witnesses.size()
              + "); got "
              + quorum);
    }
    return witnesses;
  }

  /** The context for a keys document already read and checked ({@link KeysLoader#verifier}). */
  static Context context(
      KeysLoader.Document document,
      String workspace,
      List<String> pins,
      List<WitnessKey> witnesses,
      int quorum,
      String apiKey,
      String logUrl,
      KeysFetcher fetcher)
      throws InputException {
    CheckpointVerifier verifier;
    try {
      verifier = CheckpointVerifier.of(workspace, logKeys(document, pins), witnesses);
    } catch (RuntimeException e) {
      throw new InputException(document.source() + ": " + e.getMessage());
    }
    return new Context(
        workspace, verifier, new LogClient(logUrl, workspace, apiKey, fetcher), quorum);
  }

  /** The document's public keys, only the pinned ones when pins are given. */
  private static List<byte[]> logKeys(KeysLoader.Document document, List<String> pins)
      throws InputException {
    JsonNode doc;
    try {
      doc = new ObjectMapper().readTree(document.text());
    } catch (IOException e) {
      throw new InputException(document.source() + ": not JSON");
    }
    List<byte[]> keys = new ArrayList<>();
    for (JsonNode k : doc.path("keys")) {
      byte[] key = Base64.getUrlDecoder().decode(k.path("public_key").asText());
      if (pins.isEmpty() || pins.contains(KeyFingerprint.of(key))) {
        keys.add(key);
      }
    }
    return keys;
  }

  /** The API key from {@code file} when given, else from {@code AGENTAUTH_API_KEY}, or null. */
  static String apiKey(Path apiKeyFile, Function<String, String> env) throws InputException {
    String key;
    String source;
    if (apiKeyFile != null) {
      key = SecretFiles.readPrivate(apiKeyFile, "API key file");
      source = "--api-key-file " + apiKeyFile;
    } else {
      key = env.apply("AGENTAUTH_API_KEY");
      source = "AGENTAUTH_API_KEY";
      if (key == null || key.isBlank()) {
        return null;
      }
    }
    key = key.strip();
    if (key.isEmpty() || key.length() > 4096 || !key.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
      throw new InputException(source + " must hold one API key (printable ASCII, no spaces)");
    }
    return key;
  }
}
