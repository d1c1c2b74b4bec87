package dev.agentauth.verifier;

import dev.agentauth.verifier.ChainProblem.Kind;
import dev.agentauth.verifier.ReceiptVerifier.Checked;
import dev.agentauth.verifier.ReceiptVerifier.Facts;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One authorization's receipt chain checked receipt by receipt: the rules of {@link ChainVerifier},
 * for a chain read from a stream too long to hold in memory (the auditor CLI checks an NDJSON
 * export this way). The problems are exactly those {@link ChainVerifier#verify(List)} reports for
 * the same receipts, in the same order.
 *
 * <pre>{@code
 * ChainVerifier chains = new ChainVerifier(receiptVerifier);
 * ChainCheck check = chains.newCheck();
 * try (Stream<String> lines = Files.lines(export)) {
 *   lines.forEach(line -> check.add(chains.check(line)));
 * }
 * check.problems().forEach(p -> System.err.println(p.kind() + " " + p.receiptId()));
 * }</pre>
 *
 * <p>{@link ChainVerifier#check(String)} verifies a receipt and may run on any thread, so receipts
 * can be verified in parallel and then added in issuance order.
 *
 * <p>Memory: a check keeps what the rules still need, not the receipts: the first create and revoke
 * receipts' ids, the last {@code issued_at}, every problem found, and a few fields (index, {@code
 * receipt_id}, {@code decision}, {@code issued_at}) of each receipt a later one could still make a
 * problem of: every valid scope receipt other than {@code deny} (a revocation added later, with an
 * earlier {@code issued_at}, makes it a {@code USE_AFTER_REVOKE}), and, until the create receipt
 * arrives, every valid receipt (the create receipt decides the chain's {@code authorization_id}).
 * That is tens of bytes per such receipt.
 *
 * <p>Not thread-safe: one thread adds, in order.
 */
public final class ChainCheck {

  private static final String CREATE = "authorization.create";
  private static final String REVOKE = "authorization.revoke";

  /**
   * A receipt verified for a chain: its own verification result, and what the chain rules read of
   * it when it is valid. Made by {@link ChainVerifier#check(String)}; immutable.
   */
  public static final class Receipt {
    private final Checked checked;

    Receipt(Checked checked) {
      this.checked = checked;
    }

    /**
     * Returns the receipt's own verification result, the one {@link ReceiptVerifier#verify(String)}
     * gives.
     *
     * @return the result
     */
    public VerificationResult result() {
      return checked.result();
    }
  }

  /**
   * A valid receipt a later receipt may still make a problem of, or that has a problem found at
   * once (out of order); the rules of {@link #problems()} are applied to it in index order.
   */
  private static final class Pending {
    final int index;
    final String receiptId;
    final String decision;
    final long seconds;
    final int nanos;
    final boolean scopeNotDeny;

    /**
     * Its {@code authorization_id}, kept while the chain's is not known ({@code settled} false) or
     * when it differs from the chain's; else {@code null}.
     */
    String authorizationId;

    /** Whether the chain's {@code authorization_id} was known when it was compared. */
    boolean settled;

    /** Whether its {@code authorization_id} differs from the chain's, once settled. */
    boolean mixed;

    /** The out-of-order problem found when it was added, else {@code null}. */
    ChainProblem outOfOrder;

    Pending(int index, Facts f, boolean scopeNotDeny) {
      this.index = index;
      this.receiptId = f.receiptId();
      this.decision = "allow".equals(f.decision()) ? "allow" : f.decision();
      this.seconds = f.issuedAt().getEpochSecond();
      this.nanos = f.issuedAt().getNano();
      this.scopeNotDeny = scopeNotDeny;
    }

    Instant issuedAt() {
      return Instant.ofEpochSecond(seconds, nanos);
    }

    /** Settles its authorization_id against the chain's. */
    void settle(String chainAuthorizationId) {
      settled = true;
      mixed = !Objects.equals(chainAuthorizationId, authorizationId);
      if (!mixed) {
        authorizationId = null;
      }
    }

    boolean needed() {
      return scopeNotDeny || !settled || mixed || outOfOrder != null;
    }
  }

  private int size;

  /** Problems of receipts that failed verification, in index order. */
  private final List<ChainProblem> invalid = new ArrayList<>();

  /** Second create and revoke receipts, in index order. */
  private final List<ChainProblem> duplicates = new ArrayList<>();

  /** Valid receipts that have or may get a problem, in index order. */
  private List<Pending> pending = new ArrayList<>();

  private int firstValid = -1;
  private String firstValidId;
  private String firstValidAuthorizationId;
  private int createIndex = -1;
  private String createId;
  private String createAuthorizationId;
  private String firstRevokeId;
  private Instant revokedAt;
  private Instant previousIssuedAt;
  private String previousId;

  ChainCheck() {}

  /**
   * Adds the chain's next receipt (in issuance order), at index {@link #size()}.
   *
   * @param receipt the receipt, verified by {@link ChainVerifier#check(String)}
   * @throws NullPointerException if {@code receipt} is null
   */
  public void add(Receipt receipt) {
    Objects.requireNonNull(receipt, "receipt");
    add(receipt.checked);
  }

  void add(Checked checked) {
    int i = size++;
    VerificationResult r = checked.result();
    if (!r.valid()) {
      invalid.add(
          r.failedStep() == VerificationStep.WORKSPACE
              ? new ChainProblem(Kind.MIXED_WORKSPACE, i, r.receiptId(), r.message())
              : new ChainProblem(
                  Kind.INVALID_RECEIPT,
                  i,
                  r.receiptId(),
                  "failed verification at step " + r.failedStep() + ": " + r.message()));
      return;
    }
    Facts f = checked.facts();
    if (firstValid < 0) {
      firstValid = i;
      firstValidId = f.receiptId();
      firstValidAuthorizationId = f.authorizationId();
    }
    if (CREATE.equals(f.event())) {
      if (createIndex < 0) {
        createIndex = i;
        createId = f.receiptId();
        createAuthorizationId = f.authorizationId();
        settleAuthorization();
      } else {
        duplicates.add(
            new ChainProblem(
                Kind.DUPLICATE_CREATE,
                i,
                f.receiptId(),
                "second authorization.create receipt; the first is " + createId));
      }
    } else if (REVOKE.equals(f.event())) {
      if (firstRevokeId == null) {
        firstRevokeId = f.receiptId();
      } else {
        duplicates.add(
            new ChainProblem(
                Kind.DUPLICATE_REVOKE,
                i,
                f.receiptId(),
                "second authorization.revoke receipt; the first is " + firstRevokeId));
      }
      revokedAt = revokedAt == null || f.issuedAt().isBefore(revokedAt) ? f.issuedAt() : revokedAt;
    }
    Pending p = new Pending(i, f, f.event() == null && !"deny".equals(f.decision()));
    if (previousIssuedAt != null && f.issuedAt().isBefore(previousIssuedAt)) {
      p.outOfOrder =
          new ChainProblem(
              Kind.OUT_OF_ORDER,
              i,
              f.receiptId(),
              "issued_at "
                  + f.issuedAt()
                  + " is earlier than that of the preceding receipt "
                  + previousId
                  + " ("
                  + previousIssuedAt
                  + ")");
    }
    previousIssuedAt = f.issuedAt();
    previousId = f.receiptId();
    // Until the create receipt comes, the chain's authorization_id is not known: keep the
    // receipt's, sharing the first valid receipt's string when equal rather than one copy each.
    p.authorizationId =
        Objects.equals(firstValidAuthorizationId, f.authorizationId())
            ? firstValidAuthorizationId
            : f.authorizationId();
    if (createIndex >= 0) {
      p.settle(createAuthorizationId);
    }
    if (p.needed()) {
      pending.add(p);
    }
  }

  /** The create receipt fixed the chain's authorization_id: settle the receipts before it. */
  private void settleAuthorization() {
    List<Pending> kept = new ArrayList<>(pending.size());
    for (Pending p : pending) {
      if (!p.settled) {
        p.settle(createAuthorizationId);
      }
      if (p.needed()) {
        kept.add(p);
      }
    }
    pending = kept;
  }

  /**
   * Returns how many receipts were added.
   *
   * @return the number of receipts added
   */
  public int size() {
    return size;
  }

  /**
   * Returns the chain's {@code authorization_id}: its create receipt's, else its first valid
   * receipt's, as {@link ChainReport#authorizationId()}.
   *
   * @return the authorization id, or {@code null} when no receipt added so far is valid
   */
  public String authorizationId() {
    return createIndex >= 0 ? createAuthorizationId : firstValidAuthorizationId;
  }

  /**
   * Returns every problem of the receipts added so far, in the order {@link
   * ChainVerifier#verify(List)} reports them for the same receipts. More receipts may be added
   * afterwards.
   *
   * @return the problems; empty when the chain so far is valid
   */
  public List<ChainProblem> problems() {
    List<ChainProblem> problems = new ArrayList<>(invalid);
    problems.addAll(duplicates);
    if (createIndex < 0) {
      problems.add(
          new ChainProblem(
              Kind.MISSING_CREATE,
              -1,
              null,
              size == 0
                  ? "the chain is empty: it has no authorization.create receipt"
                  : "the chain has no valid authorization.create receipt"));
    } else if (createIndex != firstValid) {
      problems.add(
          new ChainProblem(
              Kind.CREATE_NOT_FIRST,
              createIndex,
              createId,
              "the authorization.create receipt is not the first receipt of the chain; "
                  + firstValidId
                  + " precedes it"));
    }
    String authorizationId = authorizationId();
    for (Pending p : pending) {
      if (p.outOfOrder != null) {
        problems.add(p.outOfOrder);
      }
      boolean mixed = p.settled ? p.mixed : !Objects.equals(authorizationId, p.authorizationId);
      if (mixed) {
        problems.add(
            new ChainProblem(
                Kind.MIXED_AUTHORIZATION,
                p.index,
                p.receiptId,
                "authorization_id "
                    + quote(p.authorizationId)
                    + " differs from the chain's "
                    + quote(authorizationId)));
      }
      Instant issuedAt = p.issuedAt();
      if (revokedAt != null && p.scopeNotDeny && issuedAt.isAfter(revokedAt)) {
        problems.add(
            new ChainProblem(
                Kind.USE_AFTER_REVOKE,
                p.index,
                p.receiptId,
                "scope receipt with decision "
                    + p.decision
                    + " issued at "
                    + issuedAt
                    + ", after the revocation at "
                    + revokedAt
                    + "; only deny may follow a revocation"));
      }
    }
    return problems;
  }

  private static String quote(String s) {
    return s == null ? "null" : "\"" + s + "\"";
  }
}
