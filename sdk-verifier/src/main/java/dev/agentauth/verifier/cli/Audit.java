package dev.agentauth.verifier.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.verifier.ChainReport;
import dev.agentauth.verifier.ChainVerifier;
import dev.agentauth.verifier.ReceiptVerifier;
import dev.agentauth.verifier.VerificationResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

  Audit(ReceiptVerifier verifier, boolean chains) {
    this.verifier = verifier;
    this.chains = chains;
  }

  Result run(List<ReceiptEntry> entries) {
    int n = entries.size();
    VerificationResult[] results = new VerificationResult[n];
    List<ChainOutcome> chainOutcomes = null;
    int unchained = 0;
    if (chains) {
      Map<String, List<Integer>> groups = new LinkedHashMap<>();
      for (int i = 0; i < n; i++) {
        String authorizationId = authorizationId(entries.get(i));
        if (authorizationId == null) {
          unchained++;
        } else {
          groups.computeIfAbsent(authorizationId, k -> new ArrayList<>()).add(i);
        }
      }
      ChainVerifier chainVerifier = new ChainVerifier(verifier);
      chainOutcomes = new ArrayList<>(groups.size());
      for (Map.Entry<String, List<Integer>> group : groups.entrySet()) {
        List<Integer> members = group.getValue();
        List<String> texts = new ArrayList<>(members.size());
        for (int i : members) {
          texts.add(entries.get(i).text());
        }
        ChainReport report = chainVerifier.verify(texts);
        // The chain verifier verified each receipt on its own too: reuse those results.
        for (int k = 0; k < members.size(); k++) {
          results[members.get(k)] = report.results().get(k);
        }
        chainOutcomes.add(new ChainOutcome(group.getKey(), List.copyOf(members), report));
      }
    }
    List<ReceiptOutcome> outcomes = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ReceiptEntry entry = entries.get(i);
      VerificationResult result = results[i];
      if (result == null) {
        result =
            entry.text() != null
                ? verifier.verify(entry.text())
                : verifier.verify(entry.nonObject());
      }
      String decision = null;
      String scope = null;
      String event = null;
      if (result.valid()) {
        // A valid receipt parsed strictly, so the lenient tree holds the same values.
        JsonNode tree = lenientTree(entry);
        if (tree != null) {
          decision = text(tree.get("decision"));
          scope = text(tree.get("scope"));
          event = text(tree.get("event"));
        }
      }
      outcomes.add(new ReceiptOutcome(entry, result, decision, scope, event));
    }
    return new Result(List.copyOf(outcomes), chainOutcomes, unchained);
  }

  /** The receipt's {@code authorization_id} when it is a string, else {@code null}. */
  private static String authorizationId(ReceiptEntry entry) {
    JsonNode tree = lenientTree(entry);
    return tree == null ? null : text(tree.get("authorization_id"));
  }

  private static JsonNode lenientTree(ReceiptEntry entry) {
    if (entry.text() == null) {
      return null;
    }
    try {
      JsonNode tree = ReceiptInputs.LENIENT.readTree(entry.text());
      return tree != null && tree.isObject() ? tree : null;
    } catch (Exception e) {
      return null;
    }
  }

  private static String text(JsonNode node) {
    return node != null && node.isTextual() ? node.textValue() : null;
  }
}
