package dev.agentauth.verifier;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.verifier.ReceiptVerifier.Checked;
import dev.agentauth.verifier.internal.Parallel;
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
 * <p>Every problem is reported, not just the first. Never throws for bad receipts. Thread-safe. A
 * chain too long to hold in memory is checked receipt by receipt with {@link #newCheck()} (see
 * {@link ChainCheck}).
 */
public final class ChainVerifier {

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

  /**
   * Verifies one receipt for a {@link ChainCheck}, which then takes it in issuance order.
   * Thread-safe: receipts may be checked on several threads at once.
   *
   * @param receiptJson the receipt's JSON text; {@code null} or text that is not JSON is an invalid
   *     receipt failing {@link VerificationStep#PARSE}
   * @return the verified receipt
   */
  public ChainCheck.Receipt check(String receiptJson) {
    return new ChainCheck.Receipt(verifier.checkJson(receiptJson));
  }

  /**
   * Starts checking a chain receipt by receipt, for chains too long to hold in memory: add each
   * receipt, {@link #check(String) checked}, in issuance order; the problems are those {@link
   * #verify(List)} reports.
   *
   * @return an empty chain check
   */
  public ChainCheck newCheck() {
    return new ChainCheck();
  }

  /** Checks the chain rules over the receipts' own verification outcomes, in chain order. */
  private static ChainReport report(List<Checked> checkedReceipts) {
    ChainCheck check = new ChainCheck();
    List<VerificationResult> results = new ArrayList<>(checkedReceipts.size());
    for (Checked checked : checkedReceipts) {
      results.add(checked.result());
      check.add(checked);
    }
    return new ChainReport(check.authorizationId(), results, check.problems());
  }
}
