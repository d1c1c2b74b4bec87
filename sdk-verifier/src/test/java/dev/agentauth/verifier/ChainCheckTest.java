package dev.agentauth.verifier;

import static dev.agentauth.verifier.Fixtures.K1;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.verifier.ChainProblem.Kind;
import dev.agentauth.verifier.ReceiptVerifier.Checked;
import dev.agentauth.verifier.ReceiptVerifier.Facts;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link ChainCheck} takes a chain receipt by receipt and reports exactly what the whole-list rules
 * report: the same problems, in the same order, on chains of every shape.
 */
class ChainCheckTest {

  private final ReceiptVerifier verifier = Fixtures.verifier();
  private final ChainVerifier chains = new ChainVerifier(verifier);

  private static String scope(String id, String time, String decision, String authorization) {
    ObjectNode r = Fixtures.scopeReceipt();
    r.put("receipt_id", id);
    r.put("issued_at", "2026-06-01T" + time + ":00.000Z");
    r.put("decision", decision);
    r.put("authorization_id", authorization);
    return Fixtures.json(K1.sign(r));
  }

  private static String event(ObjectNode unsigned, String id, String time, String authorization) {
    unsigned.put("receipt_id", id);
    unsigned.put("issued_at", "2026-06-01T" + time + ":00.000Z");
    unsigned.put("authorization_id", authorization);
    return Fixtures.json(K1.sign(unsigned));
  }

  /**
   * Receipts to draw chains from: creates and revokes of two authorizations at several times, scope
   * receipts of every decision before and after the revocations, a tampered receipt, one of another
   * workspace's key, one without a receipt id and text that is not JSON.
   */
  private static List<String> pool() {
    String a = Fixtures.AUTHORIZATION;
    String b = "auth_01JOTHER00000000000000000";
    List<String> pool = new ArrayList<>();
    pool.add(event(Fixtures.createReceipt(), "01JCREATEA", "10:00", a));
    pool.add(event(Fixtures.createReceipt(), "01JCREATEB", "10:05", b));
    pool.add(event(Fixtures.createReceipt(), "01JCREATEA2", "10:20", a));
    pool.add(event(Fixtures.revokeReceipt(), "01JREVOKE1", "11:30", a));
    pool.add(event(Fixtures.revokeReceipt(), "01JREVOKE2", "10:40", a));
    pool.add(event(Fixtures.revokeReceipt(), "01JREVOKEB", "10:50", b));
    pool.add(event(Fixtures.resolveReceipt(), "01JRESOLVE", "10:30", a));
    String[] decisions = {"allow", "deny", "escalate"};
    String[] times = {"10:10", "10:35", "10:45", "11:00", "11:45"};
    for (int t = 0; t < times.length; t++) {
      for (String decision : decisions) {
        pool.add(scope("01JS" + t + decision, times[t], decision, a));
      }
    }
    pool.add(scope("01JSB", "10:15", "allow", b));
    ObjectNode tampered = (ObjectNode) Fixtures.parse(scope("01JTAMPERED", "10:12", "allow", a));
    tampered.put("resource", "mailbox:other");
    pool.add(Fixtures.json(tampered));
    ObjectNode stranger = Fixtures.scopeReceipt();
    stranger.put("receipt_id", "01JSTRANGER");
    pool.add(Fixtures.json(Fixtures.STRANGER.sign(stranger)));
    ObjectNode noId = (ObjectNode) Fixtures.parse(scope("01JNOID", "10:13", "allow", a));
    noId.remove("receipt_id");
    pool.add(Fixtures.json(noId));
    pool.add("{not json");
    return pool;
  }

  @Test
  void reportsWhatTheWholeListRulesReportOnRandomChains() {
    List<String> pool = pool();
    List<Checked> checked = pool.stream().map(verifier::checkJson).toList();
    Random random = new Random(25);
    int withUseAfterRevoke = 0;
    int withMixedAuthorization = 0;
    for (int run = 0; run < 3000; run++) {
      int n = random.nextInt(14);
      List<Checked> chain = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        chain.add(checked.get(random.nextInt(pool.size())));
      }
      ChainCheck check = chains.newCheck();
      chain.forEach(check::add);

      List<ChainProblem> expected = WholeListRules.problems(chain);
      assertThat(check.problems()).as("chain %s", chain).isEqualTo(expected);
      assertThat(check.authorizationId()).isEqualTo(WholeListRules.authorizationId(chain));
      assertThat(check.size()).isEqualTo(n);
      withUseAfterRevoke += count(expected, Kind.USE_AFTER_REVOKE);
      withMixedAuthorization += count(expected, Kind.MIXED_AUTHORIZATION);
    }
    // The draw reaches the rules that depend on receipts seen later.
    assertThat(withUseAfterRevoke).isPositive();
    assertThat(withMixedAuthorization).isPositive();
  }

  @Test
  void problemsCanBeReadPartWayAndMatchTheChainVerifierOnEachPrefix() {
    List<String> chain =
        List.of(
            scope("01JEARLY", "10:45", "allow", Fixtures.AUTHORIZATION),
            event(Fixtures.createReceipt(), "01JCREATE", "10:00", Fixtures.AUTHORIZATION),
            scope("01JLATE", "11:45", "allow", Fixtures.AUTHORIZATION),
            event(Fixtures.revokeReceipt(), "01JREVOKE", "11:30", Fixtures.AUTHORIZATION),
            event(Fixtures.revokeReceipt(), "01JREVOKE0", "10:40", Fixtures.AUTHORIZATION));
    ChainCheck check = chains.newCheck();
    for (int i = 0; i < chain.size(); i++) {
      check.add(chains.check(chain.get(i)));

      assertThat(check.problems()).isEqualTo(chains.verify(chain.subList(0, i + 1)).problems());
    }
    // The revocation added last, issued before 01JEARLY, makes it a use after revocation.
    assertThat(check.problems())
        .filteredOn(p -> p.kind() == Kind.USE_AFTER_REVOKE)
        .extracting(ChainProblem::receiptId)
        .containsExactly("01JEARLY", "01JLATE");
  }

  @Test
  void aCheckedReceiptCarriesItsOwnVerificationResult() {
    String receipt = scope("01JONE", "10:10", "allow", Fixtures.AUTHORIZATION);

    assertThat(chains.check(receipt).result()).isEqualTo(verifier.verify(receipt));
    assertThat(chains.check("{not json").result().failedStep()).isEqualTo(VerificationStep.PARSE);
  }

  private static int count(List<ChainProblem> problems, Kind kind) {
    return (int) problems.stream().filter(p -> p.kind() == kind).count();
  }

  /** The chain rules as ChainVerifier applied them to a whole list before ChainCheck. */
  private static final class WholeListRules {
    private static final String CREATE = "authorization.create";
    private static final String REVOKE = "authorization.revoke";

    static List<ChainProblem> problems(List<Checked> checkedReceipts) {
      int n = checkedReceipts.size();
      List<ChainProblem> problems = new ArrayList<>();
      Facts[] valid = new Facts[n];
      for (int i = 0; i < n; i++) {
        Checked checked = checkedReceipts.get(i);
        VerificationResult r = checked.result();
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
      return problems;
    }

    private static ChainProblem problem(Kind kind, int index, Facts f, String message) {
      return new ChainProblem(kind, index, f.receiptId(), message);
    }

    static String authorizationId(List<Checked> chain) {
      String first = null;
      for (Checked c : chain) {
        if (c.result().valid()) {
          if ("authorization.create".equals(c.facts().event())) {
            return c.facts().authorizationId();
          }
          first = first == null ? c.facts().authorizationId() : first;
        }
      }
      return first;
    }

    private static String quote(String s) {
      return s == null ? "null" : "\"" + s + "\"";
    }
  }
}
