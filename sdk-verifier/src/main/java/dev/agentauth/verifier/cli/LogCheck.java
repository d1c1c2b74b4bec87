package dev.agentauth.verifier.cli;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.agentauth.verifier.internal.Parallel;
import dev.agentauth.verifier.log.Checkpoint;
import dev.agentauth.verifier.log.LogHash;
import dev.agentauth.verifier.log.LogVerificationException;
import dev.agentauth.verifier.log.MerkleProofs;
import dev.agentauth.verifier.log.MerkleRoot;
import dev.agentauth.verifier.log.VerifiedCheckpoint;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;

/**
 * {@code verify --log}: checks that the receipts given are in the workspace's receipt log, under a
 * checkpoint verified against the keys document (and the witness quorum). Without {@code
 * --complete}, one inclusion proof per receipt (fetched and checked on the executor's threads);
 * with it, every entry of the log is fetched, the root recomputed and compared with the
 * checkpoint's, each given receipt looked up among the entries, and every entry of the given
 * receipts' authorizations that is not among them reported as missing. Prints one line per receipt
 * and a {@code LOG RESULT} line.
 */
final class LogCheck {

  private static final ObjectReader READER =
      JsonMapper.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build()
          .readerFor(JsonNode.class);

  /** A given receipt: its id, authorization and leaf hash. */
  private record Given(String receiptId, String authorizationId, ByteBuffer leaf, String source) {}

  private final LogOptions.Context context;
  private final boolean complete;
  private final Executor executor;
  private final PrintWriter out;
  private Checkpoint checkpoint;
  private long logged;
  private long notLogged;

  /** With {@code --complete}: the given receipts, by leaf hash. */
  private final Map<ByteBuffer, Given> given = new LinkedHashMap<>();

  LogCheck(LogOptions.Context context, boolean complete, Executor executor, PrintWriter out) {
    this.context = context;
    this.complete = complete;
    this.executor = executor;
    this.out = out;
  }

  /** Fetches and verifies the checkpoint the receipts are checked under. */
  void start() throws InputException {
    VerifiedCheckpoint v =
        context.verify(context.client().checkpoint(context.quorum()), "the log's checkpoint");
    checkpoint = v.checkpoint();
    out.println(
        "LOG     checkpoint "
            + checkpoint.origin()
            + " size "
            + checkpoint.treeSize()
            + " signature valid"
            + (v.witnesses().isEmpty() ? "" : ", cosigned by " + String.join(", ", v.witnesses())));
  }

  /** Checks one window of receipts (invalid JSON and non-receipts are skipped: reported above). */
  void receipts(List<ReceiptStream.Item> window) throws InputException {
    List<Object> results =
        Parallel.map(
            window,
            item -> {
              try {
                Given g = given(item.entry());
                if (g == null || complete) {
                  return g;
                }
                return include(g);
              } catch (InputException e) {
                return e;
              }
            },
            executor);
    for (Object r : results) {
      if (r instanceof InputException e) {
        throw e;
      }
    }
    for (Object r : results) {
      if (r instanceof Given g) {
        given.putIfAbsent(g.leaf(), g);
      } else if (r instanceof String line) {
        if (line.startsWith("LOGGED")) {
          logged++;
        } else {
          notLogged++;
        }
        out.println(line);
      }
    }
  }

  private static Given given(ReceiptEntry entry) {
    if (entry.text() == null || entry.notReceipt() != null) {
      return null;
    }
    JsonNode receipt;
    try {
      receipt = READER.readTree(entry.text());
    } catch (IOException e) {
      return null;
    }
    JsonNode id = receipt.get("receipt_id");
    if (id == null || !id.isTextual() || !receipt.has("signature")) {
      return null;
    }
    byte[] leaf;
    try {
      leaf = LogHash.leaf(receipt);
    } catch (RuntimeException e) {
      return null; // no canonical form: the receipt is already reported invalid
    }
    JsonNode auth = receipt.get("authorization_id");
    return new Given(
        id.textValue(),
        auth != null && auth.isTextual() ? auth.textValue() : null,
        ByteBuffer.wrap(leaf),
        entry.source());
  }

  /** One receipt's inclusion line; an InputException when the server cannot be asked. */
  private String include(Given g) throws InputException {
    String id = Reports.safe(g.receiptId());
    LogClient.Inclusion proof;
    try {
      proof = context.client().inclusion(g.receiptId(), checkpoint.treeSize());
    } catch (InputException e) {
      if (e.getMessage().contains("HTTP 404")) {
        return "NOT IN LOG " + id + ": not among the first " + checkpoint.treeSize() + " entries";
      }
      throw e;
    }
    try {
      MerkleProofs.verifyInclusion(
          proof.index(),
          checkpoint.treeSize(),
          g.leaf().array(),
          proof.hashes(),
          checkpoint.rootHash());
      return "LOGGED  " + id + "  log_index " + proof.index();
    } catch (LogVerificationException e) {
      return "NOT IN LOG " + id + ": " + Reports.safe(e.getMessage());
    }
  }

  /** Ends the check (fetching every entry with {@code --complete}); whether it passed. */
  boolean finish() throws InputException {
    long missing = 0;
    boolean rootMatches = true;
    if (complete) {
      Set<String> authorizations = new HashSet<>();
      for (Given g : given.values()) {
        if (g.authorizationId() != null) {
          authorizations.add(g.authorizationId());
        }
      }
      Map<ByteBuffer, Long> found = new HashMap<>();
      MerkleRoot root = new MerkleRoot();
      long size = checkpoint.treeSize();
      while (root.size() < size) {
        List<JsonNode> page = context.client().entries(root.size()).receipts();
        if (page.isEmpty()) {
          throw new LogVerificationException(
              "the log's entries end at " + root.size() + ", before the checkpoint's size " + size);
        }
        for (JsonNode receipt : page) {
          if (root.size() == size) {
            break;
          }
          long index = root.size();
          byte[] leaf;
          try {
            leaf = LogHash.leaf(receipt);
          } catch (RuntimeException e) {
            throw new LogVerificationException(
                "log entry " + index + " has no canonical form: " + e.getMessage());
          }
          root.add(leaf);
          ByteBuffer key = ByteBuffer.wrap(leaf);
          if (given.containsKey(key)) {
            found.putIfAbsent(key, index);
          } else {
            JsonNode auth = receipt.get("authorization_id");
            if (auth != null && auth.isTextual() && authorizations.contains(auth.textValue())) {
              missing++;
              out.println(
                  "MISSING "
                      + Reports.safe(receipt.path("receipt_id").asText("(no receipt_id)"))
                      + "  log_index "
                      + index
                      + " (authorization "
                      + Reports.safe(auth.textValue())
                      + "): in the log but not among the receipts given");
            }
          }
        }
      }
      rootMatches = MessageDigest.isEqual(root.root(), checkpoint.rootHash());
      if (!rootMatches) {
        out.println(
            "LOG     the "
                + size
                + " entries served do not hash to the checkpoint's root: the entries were"
                + " altered, removed, reordered or added");
      }
      for (Map.Entry<ByteBuffer, Given> e : given.entrySet()) {
        Long index = found.get(e.getKey());
        String id = Reports.safe(e.getValue().receiptId());
        if (index != null && rootMatches) {
          logged++;
          out.println("LOGGED  " + id + "  log_index " + index);
        } else {
          notLogged++;
          out.println(
              "NOT IN LOG "
                  + id
                  + ": "
                  + (rootMatches
                      ? "not among the log's " + size + " entries"
                      : "the entries cannot be trusted"));
        }
      }
    }
    boolean ok = notLogged == 0 && missing == 0 && rootMatches;
    out.println(
        "LOG RESULT "
            + (ok ? "VALID" : "INVALID")
            + ": "
            + logged
            + " in the log, "
            + notLogged
            + " not"
            + (complete ? ", " + missing + " missing from the chains given" : "")
            + " (checkpoint size "
            + checkpoint.treeSize()
            + ")");
    return ok;
  }
}
