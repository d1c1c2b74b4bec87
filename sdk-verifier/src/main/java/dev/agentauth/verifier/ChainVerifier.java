package dev.agentauth.verifier;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.verifier.ChainProblem.Kind;
import dev.agentauth.verifier.ReceiptVerifier.Checked;
import dev.agentauth.verifier.ReceiptVerifier.Facts;
import dev.agentauth.verifier.internal.Parallel;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Verifies the receipt chain of one authorization: all receipts listed by {@code GET
 * /v1/receipts?authorization_id=...}, in issuance order (oldest first, the order the service lists
 * them in).
 *
 * <pre>{@code
 * ChainVerifier chains = new ChainVerifier(receiptVerifier);
 * ChainReport report = chains.verify(receiptJsonList);
 * report.problems().forEach(p -> System.err.println(p.kind() + " " + p.receiptId() + ": " + p.message()));
 * }</pre>
 *
 * <p>Inputs, as for {@link ReceiptVerifier}: {@link #verify(List)} takes each receipt's JSON text
 * (never a file name), for instance the list the Java client's {@code
 * client.receipts().chainJson(authorizationId, timeout)} returns or the lines of an NDJSON export;
 * {@link #verifyNodes(List)} takes receipts you parsed yourself. Receipts verify as the service
 * served them, not re-serialized from a typed object (see {@link ReceiptVerifier}).
 *
 * <p>It checks that every receipt verifies on its own (with the given {@link ReceiptVerifier},
 * which also binds them all to its workspace), and then, over the valid receipts only (an invalid
 * receipt's claims are not trusted):
 *
 * <ul>
 *   <li>exactly one {@code authorization.create} receipt, and it comes first;
 *   <li>at most one {@code authorization.revoke} receipt;
 *   <li>{@code issued_at} never decreases along the given order;
 *   <li>one {@code authorization_id} throughout;
 *   <li>no scope receipt other than {@code deny} issued after the revocation's {@code issued_at}.
 * </ul>
 *
 * <p>Every problem is reported, not just the first. Never throws for bad receipts. Thread-safe.
 */
public final class ChainVerifier {

  private static final String CREATE = "authorization.create";
  private static final String REVOKE = "authorization.revoke";

  private final ReceiptVerifier verifier;

  /**
   * Creates a chain verifier that checks each receipt with {@code verifier}.
   *
   * @param verifier the receipt verifier (its keys document fixes the workspace)
   * @throws NullPointerException if {@code verifier} is null
   */
  public ChainVerifier(ReceiptVerifier verifier) {
    this.verifier = Objects.requireNonNull(verifier, "verifier");
  }

  /**
   * Verifies a chain given as the JSON text of each receipt.
   *
   * @param receipts the JSON text of each of the chain's receipts, in issuance order; may be empty
   *     (reported as missing its create receipt); an element that is not JSON text is reported as
   *     an invalid receipt failing {@link VerificationStep#PARSE}
   * @return the report listing every problem
   * @throws NullPointerException if {@code receipts} is null (null elements are reported as invalid
   *     receipts)
   */
  public ChainReport verify(List<String> receipts) {
    Objects.requireNonNull(receipts, "receipts");
    List<Checked> checked = new ArrayList<>(receipts.size());
    for (String receipt : receipts) {
      checked.add(verifier.checkJson(receipt));
    }
    return report(checked);
  }

  /**
   * Verifies a chain given as the JSON text of each receipt, verifying the receipts on the threads
   * of {@code executor} (then checking the chain rules on the calling thread). The report is the
   * one {@link #verify(List)} gives; only the time taken differs. As with {@link
   * ReceiptVerifier#verifyAll(List, Executor)}, the calling thread waits and must not be one the
   * executor needs.
   *
   * @param receipts the JSON text of each of the chain's receipts, in issuance order
   * @param executor runs the receipts' verification; the caller keeps ownership
   * @return the report listing every problem
   * @throws NullPointerException if {@code receipts} or {@code executor} is null
   * @throws java.util.concurrent.RejectedExecutionException if {@code executor} refuses the work
   */
  public ChainReport verify(List<String> receipts, Executor executor) {
    Objects.requireNonNull(receipts, "receipts");
    Objects.requireNonNull(executor, "executor");
    return report(Parallel.map(receipts, verifier::checkJson, executor));
  }

  /**
   * Verifies a chain given as parsed receipt trees. Duplicate member names cannot be detected at
   * this level, as with {@link ReceiptVerifier#verify(JsonNode)}.
   *
   * @param receipts the chain's receipts, parsed, in issuance order; may be empty
   * @return the report listing every problem
   * @throws NullPointerException if {@code receipts} is null
   */
  public ChainReport verifyNodes(List<? extends JsonNode> receipts) {
    Objects.requireNonNull(receipts, "receipts");
    List<Checked> checked = new ArrayList<>(receipts.size());
    for (JsonNode receipt : receipts) {
      checked.add(verifier.check(receipt));
    }
    return report(checked);
  }

  /** Checks the chain rules over the receipts' own verification outcomes, in chain order. */
  private static ChainReport report(List<Checked> checkedReceipts) {
    int n = checkedReceipts.size();
    List<VerificationResult> results = new ArrayList<>(n);
    List<ChainProblem> problems = new ArrayList<>();
    Facts[] valid = new Facts[n];
    for (int i = 0; i < n; i++) {
      Checked checked = checkedReceipts.get(i);
      VerificationResult r = checked.result();
      results.add(r);
      if (r.valid()) {
        valid[i] = checked.facts();
      } else if (r.failedStep() == VerificationStep.WORKSPACE) {
        problems.add(new ChainProblem(Kind.MIXED_WORKSPACE, i, r.receiptId(), r.message()));
      } else {
        problems.add(
            new ChainProblem(
                Kind.INVALID_RECEIPT,
                i,
                r.receiptId(),
                "failed verification at step " + r.failedStep() + ": " + r.message()));
      }
    }

    int createIndex = -1;
    int revokeIndex = -1;
    int firstValid = -1;
    for (int i = 0; i < n; i++) {
      Facts f = valid[i];
      if (f == null) {
        continue;
      }
      if (firstValid < 0) {
        firstValid = i;
      }
      if (CREATE.equals(f.event())) {
        if (createIndex < 0) {
          createIndex = i;
        } else {
          problems.add(
              problem(
                  Kind.DUPLICATE_CREATE,
                  i,
                  f,
                  "second authorization.create receipt; the first is "
                      + valid[createIndex].receiptId()));
        }
      } else if (REVOKE.equals(f.event())) {
        if (revokeIndex < 0) {
          revokeIndex = i;
        } else {
          problems.add(
              problem(
                  Kind.DUPLICATE_REVOKE,
                  i,
                  f,
                  "second authorization.revoke receipt; the first is "
                      + valid[revokeIndex].receiptId()));
        }
      }
    }
    if (createIndex < 0) {
      problems.add(
          new ChainProblem(
              Kind.MISSING_CREATE,
              -1,
              null,
              n == 0
                  ? "the chain is empty: it has no authorization.create receipt"
                  : "the chain has no valid authorization.create receipt"));
    } else if (createIndex != firstValid) {
      problems.add(
          problem(
              Kind.CREATE_NOT_FIRST,
              createIndex,
              valid[createIndex],
              "the authorization.create receipt is not the first receipt of the chain; "
                  + valid[firstValid].receiptId()
                  + " precedes it"));
    }

    String authorizationId =
        createIndex >= 0
            ? valid[createIndex].authorizationId()
            : firstValid >= 0 ? valid[firstValid].authorizationId() : null;
    Instant revokedAt = null;
    for (int i = 0; i < n; i++) {
      if (valid[i] != null && REVOKE.equals(valid[i].event())) {
        Instant t = valid[i].issuedAt();
        revokedAt = revokedAt == null || t.isBefore(revokedAt) ? t : revokedAt;
      }
    }

    Facts previous = null;
    for (int i = 0; i < n; i++) {
      Facts f = valid[i];
      if (f == null) {
        continue;
      }
      if (previous != null && f.issuedAt().isBefore(previous.issuedAt())) {
        problems.add(
            problem(
                Kind.OUT_OF_ORDER,
                i,
                f,
                "issued_at "
                    + f.issuedAt()
                    + " is earlier than that of the preceding receipt "
                    + previous.receiptId()
                    + " ("
                    + previous.issuedAt()
                    + ")"));
      }
      previous = f;
      if (!Objects.equals(authorizationId, f.authorizationId())) {
        problems.add(
            problem(
                Kind.MIXED_AUTHORIZATION,
                i,
                f,
                "authorization_id "
                    + quote(f.authorizationId())
                    + " differs from the chain's "
                    + quote(authorizationId)));
      }
      if (revokedAt != null
          && f.event() == null
          && !"deny".equals(f.decision())
          && f.issuedAt().isAfter(revokedAt)) {
        problems.add(
            problem(
                Kind.USE_AFTER_REVOKE,
                i,
                f,
                "scope receipt with decision "
                    + f.decision()
                    + " issued at "
                    + f.issuedAt()
                    + ", after the revocation at "
                    + revokedAt
                    + "; only deny may follow a revocation"));
      }
    }
    return new ChainReport(authorizationId, results, problems);
  }

  private static ChainProblem problem(Kind kind, int index, Facts f, String message) {
    return new ChainProblem(kind, index, f.receiptId(), message);
  }

  private static String quote(String s) {
    return s == null ? "null" : "\"" + s + "\"";
  }
}
