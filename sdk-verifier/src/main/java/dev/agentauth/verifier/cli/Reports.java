package dev.agentauth.verifier.cli;

import com.fasterxml.jackson.core.JsonGenerator;
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
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.Map;

/** Writes the audit's report as text lines or as one JSON document, as the receipts come. */
final class Reports {

  /** Non-ASCII escaped, so the JSON output is plain ASCII whatever the terminal's encoding. */
  private static final ObjectWriter JSON =
      JsonMapper.builder()
          .enable(JsonWriteFeature.ESCAPE_NON_ASCII)
          .build()
          .writerWithDefaultPrettyPrinter()
          .without(JsonGenerator.Feature.AUTO_CLOSE_TARGET);

  private Reports() {}

  /**
   * A report written as the receipts are verified: each receipt's outcome as it comes ({@link
   * Audit.Sink}), then the chains and the summary ({@link #finish}).
   */
  interface Writer extends Audit.Sink {
    void finish(Audit.Result result);

    /** Whether anything of the report was written yet. */
    boolean started();
  }

  /**
   * One line per receipt ({@code VALID <id> (<decision> <scope|event>)} or {@code INVALID <id>
   * <STEP>: <message>}), then one line per chain followed by its problems, then the summary line
   * with the overall verdict ({@link #summary}). Receipt-supplied strings are shown with control
   * and bidirectional-override characters escaped, so a receipt cannot forge output lines.
   */
  static Writer text(PrintWriter out) {
    return new Writer() {
      private boolean started;

      @Override
      public boolean started() {
        return started;
      }

      @Override
      public void receipt(ReceiptOutcome r) {
        started = true;
        VerificationResult v = r.result();
        String id = v.receiptId() != null ? safe(v.receiptId()) : "(" + safe(r.source()) + ")";
        if (v.valid()) {
          out.println("VALID   " + id + "  (" + safe(r.decision()) + " " + safe(r.subject()) + ")");
        } else {
          out.println("INVALID " + id + "  " + v.failedStep() + ": " + safe(v.message()));
        }
      }

      @Override
      public void finish(Audit.Result result) {
        started = true;
        chainLines(result, out);
        out.println(summary(result));
      }
    };
  }

  private static void chainLines(Audit.Result result, PrintWriter out) {
    if (result.chains() == null) {
      return;
    }
    for (ChainOutcome c : result.chains()) {
      int size = c.receipts();
      String receipts = size + (size == 1 ? " receipt" : " receipts");
      if (c.valid()) {
        out.println("CHAIN   " + safe(c.authorizationId()) + "  VALID (" + receipts + ")");
        continue;
      }
      int problems = c.problems().size();
      out.println(
          "CHAIN   "
              + safe(c.authorizationId())
              + "  INVALID ("
              + receipts
              + ", "
              + problems
              + (problems == 1 ? " problem)" : " problems)"));
      for (ChainProblem p : c.problems()) {
        StringBuilder line = new StringBuilder("  ").append(p.kind());
        if (p.index() >= 0) {
          line.append(' ')
              .append(
                  p.receiptId() != null
                      ? safe(p.receiptId())
                      : "(" + safe(c.sources().get(p.index())) + ")");
        }
        out.println(line.append(": ").append(safe(p.message())));
      }
    }
    if (result.unchained() > 0) {
      out.println(
          result.unchained()
              + (result.unchained() == 1 ? " receipt belongs" : " receipts belong")
              + " to no chain (no authorization_id)");
    }
  }

  /**
   * The report's last line: the overall verdict, then the counts, such as {@code RESULT INVALID 3
   * receipts: 2 valid, 1 invalid; 2 chains: 2 valid, 0 invalid}. {@code VALID} only when every
   * receipt is valid, and every chain when chains were checked (exit status 0).
   */
  static String summary(Audit.Result result) {
    long n = result.receipts();
    StringBuilder s =
        new StringBuilder()
            .append(result.ok() ? "RESULT  VALID  " : "RESULT  INVALID  ")
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
   * decision} and {@code scope} or {@code event}), {@code chains} (with {@code --chain} only),
   * {@code summary}, and last {@code verdict}: {@code "valid"} (exit status 0) or {@code "invalid"}
   * (1); an error (2) is {@link #error}'s document instead. Written as the receipts come, token by
   * token, with the pretty printer a whole tree would be written with: the same bytes, without
   * holding the tree.
   */
  static Writer json(PrintWriter out) {
    return new Writer() {
      private JsonGenerator g;

      @Override
      public boolean started() {
        return g != null;
      }

      @Override
      public void receipt(ReceiptOutcome r) {
        try {
          start();
          VerificationResult v = r.result();
          g.writeStartObject();
          g.writeStringField("source", r.source());
          g.writeStringField("receipt_id", v.receiptId());
          g.writeBooleanField("valid", v.valid());
          g.writeStringField("step", v.failedStep() == null ? null : v.failedStep().name());
          g.writeStringField("message", v.message());
          if (v.valid()) {
            g.writeStringField("decision", r.decision());
            if (r.event() != null) {
              g.writeStringField("event", r.event());
            } else {
              g.writeStringField("scope", r.scope());
            }
          }
          g.writeEndObject();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }

      private void start() throws IOException {
        if (g == null) {
          g = JSON.createGenerator(out);
          g.writeStartObject();
          g.writeArrayFieldStart("receipts");
        }
      }

      @Override
      public void finish(Audit.Result result) {
        try {
          start();
          g.writeEndArray();
          if (result.chains() != null) {
            g.writeArrayFieldStart("chains");
            for (ChainOutcome c : result.chains()) {
              g.writeStartObject();
              g.writeStringField("authorization_id", c.authorizationId());
              g.writeBooleanField("valid", c.valid());
              g.writeNumberField("receipts", c.receipts());
              g.writeArrayFieldStart("problems");
              for (ChainProblem p : c.problems()) {
                g.writeStartObject();
                g.writeStringField("kind", p.kind().name());
                g.writeStringField("receipt_id", p.receiptId());
                g.writeStringField("source", p.index() >= 0 ? c.sources().get(p.index()) : null);
                g.writeStringField("message", p.message());
                g.writeEndObject();
              }
              g.writeEndArray();
              g.writeEndObject();
            }
            g.writeEndArray();
          }
          g.writeObjectFieldStart("summary");
          g.writeNumberField("receipts", result.receipts());
          g.writeNumberField("valid", result.validReceipts());
          g.writeNumberField("invalid", result.invalidReceipts());
          if (result.chains() != null) {
            g.writeNumberField("chains", result.chains().size());
            g.writeNumberField("valid_chains", result.validChains());
            g.writeNumberField("invalid_chains", result.invalidChains());
            g.writeNumberField("unchained_receipts", result.unchained());
          }
          g.writeBooleanField("ok", result.ok());
          g.writeEndObject();
          g.writeStringField("verdict", result.ok() ? "valid" : "invalid");
          g.writeEndObject();
          g.flush();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        out.println();
      }
    };
  }

  /**
   * The JSON document of a run that ends in a usage or input error (exit status 2), so that a
   * script reading {@code --json} output always gets JSON: {@code {"verdict": "error", "exit_code":
   * 2, "error": <the message printed on standard error>}}.
   */
  static void error(String message, PrintWriter out) {
    ObjectNode doc = JsonNodeFactory.instance.objectNode();
    doc.put("verdict", "error");
    doc.put("exit_code", VerifyCli.EXIT_USAGE);
    doc.put("error", message);
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
