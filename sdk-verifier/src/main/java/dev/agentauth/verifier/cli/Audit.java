package dev.agentauth.verifier.cli;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.agentauth.verifier.ChainCheck;
import dev.agentauth.verifier.ChainProblem;
import dev.agentauth.verifier.ChainVerifier;
import dev.agentauth.verifier.ReceiptVerifier;
import dev.agentauth.verifier.VerificationResult;
import dev.agentauth.verifier.internal.Parallel;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * Verifies receipts a window at a time, and with chains on, each authorization's chain: the
 * receipts that name one {@code authorization_id}, in input order (the order {@code GET
 * /v1/receipts} lists them in is issuance order).
 *
 * <p>Each window is verified on the executor's threads and its outcomes handed to the report in
 * input order, so the report does not depend on the threads. Memory: the window being verified, and
 * with chains on, for each authorization what its {@link ChainCheck} keeps plus eight bytes per
 * receipt (where each came from, for the problems' {@code source}); never the receipts.
 */
final class Audit {

  /**
   * One receipt's outcome. {@code decision} and one of {@code scope} and {@code event} are read
   * from the receipt only when it is valid (an invalid receipt's claims are not shown as facts).
   */
  record ReceiptOutcome(
      String source, VerificationResult result, String decision, String scope, String event) {

    /** The scope of a scope receipt, or the event of an event receipt. */
    String subject() {
      return scope != null ? scope : event;
    }
  }

  /**
   * One chain's outcome.
   *
   * @param authorizationId the {@code authorization_id} its receipts name
   * @param receipts how many receipts it has
   * @param problems its problems, as {@link ChainVerifier} reports them
   * @param sources the source of each receipt a problem names, by its index in the chain
   */
  record ChainOutcome(
      String authorizationId,
      int receipts,
      List<ChainProblem> problems,
      Map<Integer, String> sources) {

    boolean valid() {
      return problems.isEmpty();
    }
  }

  /**
   * Everything found.
   *
   * @param receipts how many receipts were verified
   * @param validReceipts how many of them are valid
   * @param chains every chain's outcome, in order of first appearance; {@code null} unless chains
   *     were checked
   * @param unchained how many receipts joined no chain (no readable {@code authorization_id})
   */
  record Result(long receipts, long validReceipts, List<ChainOutcome> chains, long unchained) {

    long invalidReceipts() {
      return receipts - validReceipts;
    }

    long validChains() {
      return chains == null ? 0 : chains.stream().filter(ChainOutcome::valid).count();
    }

    long invalidChains() {
      return chains == null ? 0 : chains.size() - validChains();
    }

    /** Whether the run passes: every receipt valid, and every chain when chains were checked. */
    boolean ok() {
      return invalidReceipts() == 0 && invalidChains() == 0;
    }
  }

  /** Takes each receipt's outcome, in input order. */
  interface Sink {
    void receipt(ReceiptOutcome outcome);
  }

  /** One receipt verified on a worker thread, waiting for its turn. */
  private record Verified(
      ReceiptEntry entry,
      Members members,
      VerificationResult result,
      ChainCheck.Receipt chained,
      InputException error) {}

  /** One authorization's chain so far. */
  private static final class Chain {
    final ChainCheck check;
    long[] positions = new long[4];

    Chain(ChainCheck check) {
      this.check = check;
    }

    void add(ChainCheck.Receipt receipt, long position) {
      int i = check.size();
      if (i == positions.length) {
        positions = Arrays.copyOf(positions, i * 2);
      }
      positions[i] = position;
      check.add(receipt);
    }
  }

  private final ReceiptVerifier verifier;
  private final ChainVerifier chainVerifier;

  /** Runs the verification, or {@code null} to run it on the calling thread. */
  private final Executor executor;

  private final Sink sink;
  private final Map<String, Chain> chains;
  private long receipts;
  private long valid;
  private long unchained;

  /**
   * An audit verifying with {@code verifier} on {@code executor}'s threads (the calling thread when
   * {@code null}), checking chains when {@code chains} is set, and handing outcomes to {@code
   * sink}.
   */
  Audit(ReceiptVerifier verifier, boolean chains, Executor executor, Sink sink) {
    this.verifier = verifier;
    this.chainVerifier = chains ? new ChainVerifier(verifier) : null;
    this.executor = executor;
    this.sink = sink;
    this.chains = chains ? new LinkedHashMap<>() : null;
  }

  /** How many receipts were verified so far. */
  long receipts() {
    return receipts;
  }

  /**
   * Checks that every item of {@code window} is a receipt (each NDJSON line one JSON value), on
   * {@code executor}'s threads, without verifying anything.
   *
   * @throws InputException for the window's first item that is not
   */
  static void check(List<ReceiptStream.Item> window, Executor executor) throws InputException {
    List<InputException> errors =
        Parallel.map(
            window,
            item -> {
              try {
                item.check();
                return null;
              } catch (InputException e) {
                return e;
              }
            },
            executor);
    for (InputException e : errors) {
      if (e != null) {
        throw e;
      }
    }
  }

  /**
   * Verifies one window of receipts and hands their outcomes to the sink in order.
   *
   * @throws InputException for the window's first NDJSON line that is not JSON; no outcome of the
   *     window is handed over then
   */
  void verify(List<ReceiptStream.Item> window) throws InputException {
    List<Verified> verified = Parallel.map(window, this::verify, executor);
    for (Verified v : verified) {
      if (v.error() != null) {
        throw v.error();
      }
    }
    for (Verified v : verified) {
      take(v);
    }
  }

  private Verified verify(ReceiptStream.Item item) {
    ReceiptEntry entry;
    try {
      entry = item.entry();
    } catch (InputException e) {
      return new Verified(null, null, null, null, e);
    }
    if (entry.notReceipt() != null) {
      return new Verified(entry, Members.NONE, entry.notReceipt(), null, null);
    }
    Members members = Members.of(entry);
    if (entry.text() == null) {
      return new Verified(entry, members, verifier.verify(entry.nonObject()), null, null);
    }
    if (chainVerifier != null && members.authorizationId() != null) {
      ChainCheck.Receipt chained = chainVerifier.check(entry.text());
      return new Verified(entry, members, chained.result(), chained, null);
    }
    return new Verified(entry, members, verifier.verify(entry.text()), null, null);
  }

  private void take(Verified v) {
    receipts++;
    VerificationResult result = v.result();
    Members m = v.members();
    String source = v.entry().source();
    // An invalid receipt's claims are not shown as facts. A valid receipt parsed strictly, so the
    // lenient scan read the same values.
    if (result.valid()) {
      valid++;
      sink.receipt(new ReceiptOutcome(source, result, m.decision(), m.scope(), m.event()));
    } else {
      sink.receipt(new ReceiptOutcome(source, result, null, null, null));
    }
    if (chains != null) {
      if (m.authorizationId() == null) {
        unchained++;
      } else {
        chains
            .computeIfAbsent(m.authorizationId(), k -> new Chain(chainVerifier.newCheck()))
            .add(v.chained(), v.entry().position());
      }
    }
  }

  /**
   * Checks the chains and returns everything found.
   *
   * @param inputs the inputs' names, in order (to name the receipts chain problems point at)
   */
  Result finish(List<String> inputs) {
    List<ChainOutcome> chainOutcomes = null;
    if (chains != null) {
      chainOutcomes = new ArrayList<>(chains.size());
      for (Iterator<Map.Entry<String, Chain>> it = chains.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<String, Chain> e = it.next();
        Chain chain = e.getValue();
        List<ChainProblem> problems = chain.check.problems();
        Map<Integer, String> sources = new HashMap<>();
        for (ChainProblem p : problems) {
          if (p.index() >= 0) {
            sources.put(p.index(), ReceiptEntry.source(inputs, chain.positions[p.index()]));
          }
        }
        chainOutcomes.add(
            new ChainOutcome(e.getKey(), chain.check.size(), List.copyOf(problems), sources));
        it.remove();
      }
    }
    return new Result(receipts, valid, chainOutcomes, unchained);
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
