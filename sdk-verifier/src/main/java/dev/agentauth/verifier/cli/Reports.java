package dev.agentauth.verifier.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.verifier.ChainProblem;
import dev.agentauth.verifier.VerificationResult;
import dev.agentauth.verifier.cli.Audit.ChainOutcome;
import dev.agentauth.verifier.cli.Audit.ReceiptOutcome;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.Map;

/** Writes an {@link Audit.Result} as text lines or as one JSON document. */
final class Reports {

  /** Non-ASCII escaped, so the JSON output is plain ASCII whatever the terminal's encoding. */
  private static final ObjectWriter JSON =
      JsonMapper.builder()
          .enable(JsonWriteFeature.ESCAPE_NON_ASCII)
          .build()
          .writerWithDefaultPrettyPrinter();

  private Reports() {}

  /**
   * One line per receipt ({@code VALID <id> (<decision> <scope|event>)} or {@code INVALID <id>
   * <STEP>: <message>}), then one line per chain followed by its problems, then a summary line.
   * Receipt-supplied strings are shown with control and bidirectional-override characters escaped,
   * so a receipt cannot forge output lines.
   */
  static void text(Audit.Result result, PrintWriter out) {
    for (ReceiptOutcome r : result.receipts()) {
      VerificationResult v = r.result();
      String id =
          v.receiptId() != null ? safe(v.receiptId()) : "(" + safe(r.entry().source()) + ")";
      if (v.valid()) {
        out.println("VALID   " + id + "  (" + safe(r.decision()) + " " + safe(r.subject()) + ")");
      } else {
        out.println("INVALID " + id + "  " + v.failedStep() + ": " + safe(v.message()));
      }
    }
    if (result.chains() != null) {
      for (ChainOutcome c : result.chains()) {
        int size = c.members().size();
        String receipts = size + (size == 1 ? " receipt" : " receipts");
        if (c.report().valid()) {
          out.println("CHAIN   " + safe(c.authorizationId()) + "  VALID (" + receipts + ")");
        } else {
          int problems = c.report().problems().size();
          out.println(
              "CHAIN   "
                  + safe(c.authorizationId())
                  + "  INVALID ("
                  + receipts
                  + ", "
                  + problems
                  + (problems == 1 ? " problem)" : " problems)"));
          for (ChainProblem p : c.report().problems()) {
            StringBuilder line = new StringBuilder("  ").append(p.kind());
            if (p.index() >= 0) {
              line.append(' ')
                  .append(
                      p.receiptId() != null
                          ? safe(p.receiptId())
                          : "(" + safe(source(result, c, p)) + ")");
            }
            out.println(line.append(": ").append(safe(p.message())));
          }
        }
      }
      if (result.unchained() > 0) {
        out.println(
            result.unchained()
                + (result.unchained() == 1 ? " receipt belongs" : " receipts belong")
                + " to no chain (no authorization_id)");
      }
    }
    out.println(summary(result));
  }

  static String summary(Audit.Result result) {
    int n = result.receipts().size();
    StringBuilder s =
        new StringBuilder()
            .append(n)
            .append(n == 1 ? " receipt: " : " receipts: ")
            .append(result.validReceipts())
            .append(" valid, ")
            .append(result.invalidReceipts())
            .append(" invalid");
    if (result.chains() != null) {
      int c = result.chains().size();
      s.append("; ")
          .append(c)
          .append(c == 1 ? " chain: " : " chains: ")
          .append(result.validChains())
          .append(" valid, ")
          .append(result.invalidChains())
          .append(" invalid");
    }
    return s.toString();
  }

  /**
   * One JSON document: {@code receipts} (one object per receipt: {@code source}, {@code
   * receipt_id}, {@code valid}, {@code step}, {@code message}, and for a valid receipt {@code
   * decision} and {@code scope} or {@code event}), {@code chains} (with {@code --chain} only) and
   * {@code summary}.
   */
  static void json(Audit.Result result, PrintWriter out) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    ObjectNode doc = f.objectNode();
    ArrayNode receipts = doc.putArray("receipts");
    for (ReceiptOutcome r : result.receipts()) {
      VerificationResult v = r.result();
      ObjectNode o = receipts.addObject();
      o.put("source", r.entry().source());
      o.put("receipt_id", v.receiptId());
      o.put("valid", v.valid());
      o.put("step", v.failedStep() == null ? null : v.failedStep().name());
      o.put("message", v.message());
      if (v.valid()) {
        o.put("decision", r.decision());
        if (r.event() != null) {
          o.put("event", r.event());
        } else {
          o.put("scope", r.scope());
        }
      }
    }
    if (result.chains() != null) {
      ArrayNode chains = doc.putArray("chains");
      for (ChainOutcome c : result.chains()) {
        ObjectNode o = chains.addObject();
        o.put("authorization_id", c.authorizationId());
        o.put("valid", c.report().valid());
        o.put("receipts", c.members().size());
        ArrayNode problems = o.putArray("problems");
        for (ChainProblem p : c.report().problems()) {
          ObjectNode po = problems.addObject();
          po.put("kind", p.kind().name());
          po.put("receipt_id", p.receiptId());
          po.put("source", p.index() >= 0 ? source(result, c, p) : null);
          po.put("message", p.message());
        }
      }
    }
    ObjectNode summary = doc.putObject("summary");
    summary.put("receipts", result.receipts().size());
    summary.put("valid", result.validReceipts());
    summary.put("invalid", result.invalidReceipts());
    if (result.chains() != null) {
      summary.put("chains", result.chains().size());
      summary.put("valid_chains", result.validChains());
      summary.put("invalid_chains", result.invalidChains());
      summary.put("unchained_receipts", result.unchained());
    }
    summary.put("ok", result.ok());
    try {
      out.println(JSON.writeValueAsString(doc));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The fingerprints of a keys document: one line {@code <key_id> SHA256:<digest>} per key (key id
   * escaped as in {@link #text}), or one JSON document {@code {"workspace_id", "keys": [{"key_id",
   * "fingerprint"}]}}.
   */
  static void fingerprints(
      String workspaceId, Map<String, String> fingerprints, boolean json, PrintWriter out) {
    if (!json) {
      fingerprints.forEach((keyId, fingerprint) -> out.println(safe(keyId) + "  " + fingerprint));
      return;
    }
    ObjectNode doc = JsonNodeFactory.instance.objectNode();
    doc.put("workspace_id", workspaceId);
    ArrayNode keys = doc.putArray("keys");
    fingerprints.forEach(
        (keyId, fingerprint) ->
            keys.addObject().put("key_id", keyId).put("fingerprint", fingerprint));
    try {
      out.println(JSON.writeValueAsString(doc));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String source(Audit.Result result, ChainOutcome c, ChainProblem p) {
    return result.receipts().get(c.members().get(p.index())).entry().source();
  }

  /**
   * Escapes characters that could disturb a terminal or forge a line: C0 and C1 controls, DEL, line
   * and paragraph separators, bidirectional controls, the byte order mark and lone surrogates.
   */
  static String safe(String s) {
    if (s == null) {
      return "-";
    }
    StringBuilder sb = null;
    int n = s.length();
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      boolean escape;
      if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
        if (sb != null) {
          sb.append(c).append(s.charAt(i + 1));
        }
        i++;
        continue;
      }
      escape =
          c < 0x20
              || (c >= 0x7F && c <= 0x9F)
              || c == 0x061C
              || c == 0x200E
              || c == 0x200F
              || (c >= 0x2028 && c <= 0x202E)
              || (c >= 0x2066 && c <= 0x2069)
              || c == 0xFEFF
              || Character.isSurrogate(c);
      if (escape && sb == null) {
        sb = new StringBuilder(n + 16).append(s, 0, i);
      }
      if (sb != null) {
        if (escape) {
          sb.append("\\u").append(Integer.toHexString(0x10000 | c), 1, 5);
        } else {
          sb.append(c);
        }
      }
    }
    return sb == null ? s : sb.toString();
  }
}
