package dev.agentauth.verifier.cli;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.agentauth.verifier.ChainReport;
import dev.agentauth.verifier.ChainVerifier;
import dev.agentauth.verifier.ReceiptVerifier;
import dev.agentauth.verifier.VerificationResult;
import dev.agentauth.verifier.internal.Parallel;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * Verifies every receipt read, and with chains on, each authorization's chain: the receipts that
 * name one {@code authorization_id}, in input order (the order {@code GET /v1/receipts} lists them
 * in is issuance order).
 */
final class Audit {

  /**
   * One receipt's outcome. {@code decision} and one of {@code scope} and {@code event} are read
   * from the receipt only when it is valid (an invalid receipt's claims are not shown as facts).
   */
  record ReceiptOutcome(
      ReceiptEntry entry, VerificationResult result, String decision, String scope, String event) {

    /** The scope of a scope receipt, or the event of an event receipt. */
    String subject() {
      return scope != null ? scope : event;
    }
  }

  /** One chain's outcome; {@code members} are indexes into the receipt list, in chain order. */
  record ChainOutcome(String authorizationId, List<Integer> members, ChainReport report) {}

  /**
   * Everything found.
   *
   * @param receipts every receipt's outcome, in input order
   * @param chains every chain's outcome, in order of first appearance; {@code null} unless chains
   *     were checked
   * @param unchained how many receipts joined no chain (no readable {@code authorization_id})
   */
  record Result(List<ReceiptOutcome> receipts, List<ChainOutcome> chains, int unchained) {

    long validReceipts() {
      return receipts.stream().filter(r -> r.result().valid()).count();
    }

    long invalidReceipts() {
      return receipts.size() - validReceipts();
    }

    long validChains() {
      return chains == null ? 0 : chains.stream().filter(c -> c.report().valid()).count();
    }

    long invalidChains() {
      return chains == null ? 0 : chains.size() - validChains();
    }

    /** Whether the run passes: every receipt valid, and every chain when chains were checked. */
    boolean ok() {
      return invalidReceipts() == 0 && invalidChains() == 0;
    }
  }

  private final ReceiptVerifier verifier;
  private final boolean chains;

  /** Runs the verification, or {@code null} to run it on the calling thread. */
  private final Executor executor;

  private Audit(ReceiptVerifier verifier, boolean chains, Executor executor) {
    this.verifier = verifier;
    this.chains = chains;
    this.executor = executor;
  }

  /**
   * Verifies {@code entries} on {@code executor}'s threads, or on the calling thread when it is
   * {@code null}. The result does not depend on the threads: every receipt's result is computed on
   * its own and placed at its input index, and chains are checked in order of first appearance.
   */
  static Result run(
      ReceiptVerifier verifier, boolean chains, List<ReceiptEntry> entries, Executor executor) {
    return new Audit(verifier, chains, executor).run(entries);
  }

  private Result run(List<ReceiptEntry> entries) {
    int n = entries.size();
    VerificationResult[] results = new VerificationResult[n];
    List<Members> members = Parallel.map(entries, Members::of, executor);
    List<ChainOutcome> chainOutcomes = null;
    int unchained = 0;
    if (chains) {
      Map<String, List<Integer>> groups = new LinkedHashMap<>();
      for (int i = 0; i < n; i++) {
        String authorizationId = members.get(i).authorizationId();
        if (authorizationId == null) {
          unchained++;
        } else {
          groups.computeIfAbsent(authorizationId, k -> new ArrayList<>()).add(i);
        }
      }
      ChainVerifier chainVerifier = new ChainVerifier(verifier);
      chainOutcomes = new ArrayList<>(groups.size());
      for (Map.Entry<String, List<Integer>> group : groups.entrySet()) {
        List<Integer> indexes = group.getValue();
        List<String> texts = new ArrayList<>(indexes.size());
        for (int i : indexes) {
          texts.add(entries.get(i).text());
        }
        ChainReport report =
            executor == null ? chainVerifier.verify(texts) : chainVerifier.verify(texts, executor);
        // The chain verifier verified each receipt on its own too: reuse those results.
        for (int k = 0; k < indexes.size(); k++) {
          results[indexes.get(k)] = report.results().get(k);
        }
        chainOutcomes.add(new ChainOutcome(group.getKey(), List.copyOf(indexes), report));
      }
    }
    List<Integer> pending = new ArrayList<>();
    List<String> pendingTexts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ReceiptEntry entry = entries.get(i);
      if (results[i] != null) {
        continue;
      }
      if (entry.text() == null) {
        results[i] = verifier.verify(entry.nonObject());
      } else {
        pending.add(i);
        pendingTexts.add(entry.text());
      }
    }
    List<VerificationResult> verified =
        executor == null
            ? Parallel.map(pendingTexts, verifier::verify, null)
            : verifier.verifyAll(pendingTexts, executor);
    for (int k = 0; k < pending.size(); k++) {
      results[pending.get(k)] = verified.get(k);
    }
    List<ReceiptOutcome> outcomes = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      VerificationResult result = results[i];
      Members m = members.get(i);
      // An invalid receipt's claims are not shown as facts. A valid receipt parsed strictly, so
      // the lenient scan read the same values.
      outcomes.add(
          result.valid()
              ? new ReceiptOutcome(entries.get(i), result, m.decision(), m.scope(), m.event())
              : new ReceiptOutcome(entries.get(i), result, null, null, null));
    }
    return new Result(List.copyOf(outcomes), chainOutcomes, unchained);
  }

  /**
   * The top-level string members the report shows or groups by, read with a lenient streaming scan
   * (nested values skipped, the last of duplicate names kept, as a lenient tree would); {@code
   * null} for a member that is absent or not a string, or when the text is not a JSON object.
   */
  record Members(String authorizationId, String decision, String scope, String event) {

    private static final Members NONE = new Members(null, null, null, null);

    static Members of(ReceiptEntry entry) {
      if (entry.text() == null) {
        return NONE;
      }
      String authorizationId = null;
      String decision = null;
      String scope = null;
      String event = null;
      try (JsonParser p = ReceiptInputs.LENIENT.createParser(entry.text())) {
        if (p.nextToken() != JsonToken.START_OBJECT) {
          return NONE;
        }
        for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
          String name = p.currentName();
          JsonToken value = p.nextToken();
          String text = value == JsonToken.VALUE_STRING ? p.getText() : null;
          switch (name) {
            case "authorization_id" -> authorizationId = text;
            case "decision" -> decision = text;
            case "scope" -> scope = text;
            case "event" -> event = text;
            default -> {}
          }
          p.skipChildren();
        }
        if (p.currentToken() != JsonToken.END_OBJECT) {
          return NONE;
        }
      } catch (IOException | RuntimeException e) {
        return NONE;
      }
      return new Members(authorizationId, decision, scope, event);
    }
  }
}
