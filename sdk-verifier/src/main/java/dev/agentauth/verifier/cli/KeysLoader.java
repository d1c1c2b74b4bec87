package dev.agentauth.verifier.cli;

import dev.agentauth.verifier.KeyFingerprint;
import dev.agentauth.verifier.KeysDocumentException;
import dev.agentauth.verifier.ReceiptVerifier;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.time.Clock;
import java.util.List;

/**
 * Reads a keys document from a file, standard input or the service's keys endpoint, and builds the
 * verifier from it, with the pinned key fingerprints if any. Shared by {@code verify} and {@code
 * keys fingerprint}.
 */
final class KeysLoader {

  /**
   * A keys document's text and where it came from.
   *
   * @param source the file name, {@code <stdin>} or the URL, for messages
   * @param text the document's JSON text
   * @param workspace the workspace asked for, when fetched from the keys endpoint, else {@code
   *     null}
   */
  record Document(String source, String text, String workspace) {}

  private KeysLoader() {}

  /** Reads a keys document file, or standard input for {@code -}. */
  static Document fromFile(String file, InputStream stdin) throws InputException {
    if ("-".equals(file)) {
      byte[] bytes;
      try {
        bytes = stdin.readAllBytes();
      } catch (IOException e) {
        throw new InputException("cannot read standard input: " + e.getMessage());
      }
      return new Document(
          ReceiptInputs.STDIN, ReceiptInputs.decode(ReceiptInputs.STDIN, bytes), null);
    }
    return new Document(
        file, ReceiptInputs.decode(file, ReceiptInputs.readFile(file, "keys document")), null);
  }

  /** Fetches {@code BASE_URL/v1/workspaces/ID/keys} under {@link KeysFetcher}'s rules. */
  static Document fromUrl(String baseUrl, String workspace, KeysFetcher fetcher)
      throws InputException {
    URI uri = KeysFetcher.keysUri(baseUrl, workspace);
    return new Document(uri.toString(), fetcher.fetch(uri), workspace);
  }

  /** Checks {@code --trusted-key-fingerprint} values before anything is read or fetched. */
  static void checkPins(List<String> pins) throws InputException {
    for (String pin : pins) {
      try {
        KeyFingerprint.requireValid(pin);
      } catch (IllegalArgumentException e) {
        throw new InputException("--trusted-key-fingerprint: " + e.getMessage());
      }
    }
  }

  /**
   * Builds the verifier: the document must be a valid keys document, of the workspace asked for
   * when fetched, and hold at least one pinned key when {@code pins} is not empty.
   */
  static ReceiptVerifier verifier(Document document, Clock clock, List<String> pins)
      throws InputException {
    checkPins(pins);
    ReceiptVerifier.Builder builder =
        ReceiptVerifier.builder().keysJson(document.text()).clock(clock);
    if (!pins.isEmpty()) {
      builder.trustedKeyFingerprints(pins);
    }
    ReceiptVerifier verifier;
    try {
      verifier = builder.build();
    } catch (KeysDocumentException e) {
      throw new InputException(document.source() + ": " + e.getMessage());
    }
    if (document.workspace() != null && !verifier.workspaceId().equals(document.workspace())) {
      throw new InputException(
          "the keys document at "
              + document.source()
              + " is for workspace \""
              + verifier.workspaceId()
              + "\", not \""
              + document.workspace()
              + "\"");
    }
    return verifier;
  }
}
