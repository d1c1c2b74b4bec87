package dev.agentauth.verifier;

import static dev.agentauth.verifier.Fixtures.K1;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.verifier.ChainProblem.Kind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChainVerifierTest {

  private final ChainVerifier chains = new ChainVerifier(Fixtures.verifier());

  private static ObjectNode create() {
    return K1.sign(Fixtures.createReceipt()); // 10:00
  }

  private static ObjectNode resolve() {
    return K1.sign(Fixtures.resolveReceipt()); // 10:30
  }

  private static ObjectNode revoke() {
    return K1.sign(Fixtures.revokeReceipt()); // 11:30
  }

  private static ObjectNode scope(String id, String time, String decision) {
    ObjectNode r = Fixtures.scopeReceipt();
    r.put("receipt_id", id);
    r.put("issued_at", "2026-06-01T" + time + ":00.000Z");
    r.put("decision", decision);
    return K1.sign(r);
  }

  /** create, allow, resolve, allow, revoke, deny: a valid chain. */
  private static List<ObjectNode> validChain() {
    return new ArrayList<>(
        List.of(
            create(),
            scope("01JSCOPE1", "10:15", "allow"),
            resolve(),
            scope("01JSCOPE2", "10:45", "allow"),
            revoke(),
            scope("01JSCOPE3", "11:45", "deny")));
  }

  private ChainReport verify(List<ObjectNode> receipts) {
    List<String> texts = receipts.stream().map(Fixtures::json).toList();
    ChainReport fromText = chains.verify(texts);
    assertThat(chains.verifyNodes(receipts)).isEqualTo(fromText);
    return fromText;
  }

  private static List<Kind> kinds(ChainReport report) {
    return report.problems().stream().map(ChainProblem::kind).toList();
  }

  @Test
  void aValidChainHasNoProblems() {
    ChainReport report = verify(validChain());

    assertThat(report.problems()).isEmpty();
    assertThat(report.valid()).isTrue();
    assertThat(report.authorizationId()).isEqualTo(Fixtures.AUTHORIZATION);
    assertThat(report.results()).hasSize(6).allMatch(VerificationResult::valid);
  }

  @Test
  void aCreateAloneIsAValidChain() {
    assertThat(verify(List.of(create())).valid()).isTrue();
  }

  @Test
  void anEmptyChainLacksItsCreateReceipt() {
    ChainReport report = chains.verify(List.of());

    assertThat(kinds(report)).containsExactly(Kind.MISSING_CREATE);
    assertThat(report.problems().get(0).index()).isEqualTo(-1);
    assertThat(report.authorizationId()).isNull();
  }

  @Test
  void aChainWithoutCreateIsReported() {
    List<ObjectNode> chain = validChain();
    chain.remove(0);

    assertThat(kinds(verify(chain))).containsExactly(Kind.MISSING_CREATE);
  }

  @Test
  void twoCreateReceiptsAreReported() {
    List<ObjectNode> chain = validChain();
    ObjectNode second = Fixtures.createReceipt();
    second.put("receipt_id", "01JCREATE2");
    second.put("issued_at", "2026-06-01T10:20:00Z");
    chain.add(2, K1.sign(second));

    ChainReport report = verify(chain);

    assertThat(kinds(report)).containsExactly(Kind.DUPLICATE_CREATE);
    assertThat(report.problems().get(0).receiptId()).isEqualTo("01JCREATE2");
    assertThat(report.problems().get(0).index()).isEqualTo(2);
  }

  @Test
  void twoRevokeReceiptsAreReported() {
    List<ObjectNode> chain = validChain();
    ObjectNode second = Fixtures.revokeReceipt();
    second.put("receipt_id", "01JREVOKE2");
    second.put("issued_at", "2026-06-01T11:50:00Z");
    chain.add(K1.sign(second));

    ChainReport report = verify(chain);

    assertThat(kinds(report)).containsExactly(Kind.DUPLICATE_REVOKE);
    assertThat(report.problems().get(0).receiptId()).isEqualTo("01JREVOKE2");
  }

  @Test
  void receiptsOutOfIssuanceOrderAreReported() {
    List<ObjectNode> chain = validChain();
    ObjectNode scope2 = chain.remove(3);
    chain.add(2, scope2); // 10:45 before 10:30

    ChainReport report = verify(chain);

    assertThat(kinds(report)).containsExactly(Kind.OUT_OF_ORDER);
    assertThat(report.problems().get(0).receiptId()).isEqualTo("01JFIXTURERESOLVE000000000");
  }

  @Test
  void equalIssuedAtIsInOrder() {
    List<ObjectNode> chain = validChain();
    chain.add(2, scope("01JSCOPE15", "10:15", "deny"));

    assertThat(verify(chain).valid()).isTrue();
  }

  @Test
  void aCreateReceiptThatIsNotFirstIsReported() {
    List<ObjectNode> chain = validChain();
    chain.add(0, scope("01JEARLY", "09:00", "deny"));

    ChainReport report = verify(chain);

    assertThat(kinds(report)).containsExactly(Kind.CREATE_NOT_FIRST);
    assertThat(report.problems().get(0).message()).contains("01JEARLY");
  }

  @Test
  void aReceiptOfAnotherWorkspaceIsReported() {
    List<ObjectNode> chain = validChain();
    ObjectNode foreign = Fixtures.scopeReceipt();
    foreign.put("receipt_id", "01JFOREIGN");
    foreign.put("workspace_id", "ws_other");
    foreign.put("issued_at", "2026-06-01T10:50:00Z");
    chain.add(4, K1.sign(foreign));

    ChainReport report = verify(chain);

    assertThat(kinds(report)).containsExactly(Kind.MIXED_WORKSPACE);
    assertThat(report.problems().get(0).receiptId()).isEqualTo("01JFOREIGN");
    assertThat(report.results().get(4).failedStep()).isEqualTo(VerificationStep.WORKSPACE);
  }

  @Test
  void aReceiptOfAnotherAuthorizationIsReported() {
    List<ObjectNode> chain = validChain();
    ObjectNode other = Fixtures.scopeReceipt();
    other.put("receipt_id", "01JOTHERAUTH");
    other.put("authorization_id", "auth_other");
    other.put("issued_at", "2026-06-01T10:50:00Z");
    chain.add(4, K1.sign(other));
    ObjectNode notFound = Fixtures.scopeReceipt();
    notFound.put("receipt_id", "01JNOTFOUND");
    notFound.put("decision", "deny");
    notFound.putNull("authorization_id");
    notFound.put("issued_at", "2026-06-01T10:55:00Z");
    chain.add(5, K1.sign(notFound));

    ChainReport report = verify(chain);

    assertThat(kinds(report)).containsExactly(Kind.MIXED_AUTHORIZATION, Kind.MIXED_AUTHORIZATION);
    assertThat(report.problems().get(0).message())
        .contains("\"auth_other\"", Fixtures.AUTHORIZATION);
    assertThat(report.problems().get(1).receiptId()).isEqualTo("01JNOTFOUND");
  }

  @Test
  void anAllowAfterTheRevocationIsReported() {
    List<ObjectNode> chain = validChain();
    chain.add(scope("01JLATEALLOW", "11:50", "allow"));
    chain.add(scope("01JLATECONFIRM", "11:55", "confirm"));

    ChainReport report = verify(chain);

    assertThat(kinds(report)).containsExactly(Kind.USE_AFTER_REVOKE, Kind.USE_AFTER_REVOKE);
    assertThat(report.problems().get(0).receiptId()).isEqualTo("01JLATEALLOW");
    assertThat(report.problems().get(0).message()).contains("allow", "2026-06-01T11:30:00Z");
  }

  @Test
  void denialsAndDecisionsAtTheRevocationInstantAreAllowed() {
    List<ObjectNode> chain = validChain();
    chain.add(4, scope("01JSAMEINSTANT", "11:30", "allow"));
    chain.add(scope("01JLATEDENY", "11:59", "deny"));

    assertThat(verify(chain).valid()).isTrue();
  }

  @Test
  void anInvalidMemberIsReported() {
    List<ObjectNode> chain = validChain();
    chain.get(3).put("reason", "tampered");

    ChainReport report = verify(chain);

    assertThat(kinds(report)).containsExactly(Kind.INVALID_RECEIPT);
    assertThat(report.problems().get(0).index()).isEqualTo(3);
    assertThat(report.problems().get(0).receiptId()).isEqualTo("01JSCOPE2");
    assertThat(report.problems().get(0).message()).contains("SIGNATURE");
    assertThat(report.results().get(3).failedStep()).isEqualTo(VerificationStep.SIGNATURE);
  }

  @Test
  void unparseableMembersAreInvalidReceipts() {
    List<String> texts = new ArrayList<>(validChain().stream().map(Fixtures::json).toList());
    texts.add("not json");
    texts.add(null);
    texts.add("chain/receipt-4.json");

    ChainReport report = chains.verify(texts);

    assertThat(kinds(report))
        .containsExactly(Kind.INVALID_RECEIPT, Kind.INVALID_RECEIPT, Kind.INVALID_RECEIPT);
    assertThat(report.problems().get(0).receiptId()).isNull();
    assertThat(report.problems().get(2).message())
        .contains("PARSE")
        .contains("looks like a file name")
        .contains("Path.of(\"chain/receipt-4.json\")");
  }

  @Test
  void anInvalidCreateReceiptDoesNotCountAsTheCreate() {
    List<ObjectNode> chain = validChain();
    chain.get(0).put("user_id", "mallory");

    assertThat(kinds(verify(chain))).containsExactly(Kind.INVALID_RECEIPT, Kind.MISSING_CREATE);
  }

  @Test
  void severalDefectsAreAllReported() {
    List<ObjectNode> chain = validChain();
    chain.get(1).put("reason", "tampered"); // invalid member
    ObjectNode secondCreate = Fixtures.createReceipt();
    secondCreate.put("receipt_id", "01JCREATE2");
    secondCreate.put("issued_at", "2026-06-01T10:40:00Z");
    chain.add(3, K1.sign(secondCreate)); // duplicate create
    ObjectNode secondRevoke = Fixtures.revokeReceipt();
    secondRevoke.put("receipt_id", "01JREVOKE2");
    secondRevoke.put("issued_at", "2026-06-01T11:40:00Z");
    chain.add(K1.sign(secondRevoke)); // duplicate revoke, and 11:40 < 11:45: out of order
    chain.add(scope("01JLATEALLOW", "11:50", "allow")); // use after revoke
    ObjectNode other = Fixtures.scopeReceipt();
    other.put("receipt_id", "01JOTHERAUTH");
    other.put("authorization_id", "auth_other");
    other.put("issued_at", "2026-06-01T11:55:00Z");
    other.put("decision", "deny");
    chain.add(K1.sign(other)); // mixed authorization
    ObjectNode foreign = Fixtures.scopeReceipt();
    foreign.put("workspace_id", "ws_other");
    chain.add(K1.sign(foreign)); // mixed workspace

    ChainReport report = verify(chain);

    assertThat(report.valid()).isFalse();
    assertThat(kinds(report))
        .containsExactlyInAnyOrder(
            Kind.INVALID_RECEIPT,
            Kind.MIXED_WORKSPACE,
            Kind.DUPLICATE_CREATE,
            Kind.DUPLICATE_REVOKE,
            Kind.OUT_OF_ORDER,
            Kind.MIXED_AUTHORIZATION,
            Kind.USE_AFTER_REVOKE);
    assertThat(report.problems())
        .extracting(ChainProblem::receiptId)
        .contains("01JSCOPE1", "01JCREATE2", "01JREVOKE2", "01JLATEALLOW", "01JOTHERAUTH");
  }

  @Test
  void reportListsAreImmutable() {
    ChainReport report = verify(validChain());

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> report.problems().add(null))
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
