package dev.agentauth.verifier.vectors;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.verifier.ChainProblem;
import dev.agentauth.verifier.ChainReport;
import dev.agentauth.verifier.ChainVerifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The {@code chains} of {@code docs/receipt-vectors.json}: lists of vector names forming one
 * authorization's receipt chain, each with the problems a chain verifier must report.
 */
class OwnVectorsChainTest {

  private static final ChainVerifier CHAINS = new ChainVerifier(ReceiptVectors.verifier());
  private static final Map<String, String> RECEIPTS = ReceiptVectors.receiptTexts();

  static Stream<Arguments> chains() {
    return ReceiptVectors.arguments(ReceiptVectors.group("chains")).stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("chains")
  void chainVerifierReportsExactlyTheExpectedProblems(String name, JsonNode chain) {
    List<String> receipts = new ArrayList<>();
    for (JsonNode n : chain.get("receipts")) {
      assertThat(RECEIPTS).containsKey(n.textValue());
      receipts.add(RECEIPTS.get(n.textValue()));
    }
    List<String> expected = new ArrayList<>();
    for (JsonNode p : chain.get("expected_problems")) {
      expected.add(p.get("kind").textValue() + "@" + p.get("index").intValue());
    }

    ChainReport report = CHAINS.verify(receipts);

    List<String> actual = new ArrayList<>();
    for (ChainProblem p : report.problems()) {
      actual.add(p.kind() + "@" + p.index());
    }
    assertThat(actual)
        .as(report.problems().toString())
        .containsExactlyInAnyOrderElementsOf(expected);
    assertThat(report.valid()).isEqualTo(expected.isEmpty());
  }

  @Test
  void everyChainProblemKindHasAVector() {
    List<String> kinds = new ArrayList<>();
    for (JsonNode c : ReceiptVectors.group("chains")) {
      c.get("expected_problems").forEach(p -> kinds.add(p.get("kind").textValue()));
    }

    for (ChainProblem.Kind kind : ChainProblem.Kind.values()) {
      assertThat(kinds).as("a chain vector for " + kind).contains(kind.name());
    }
  }
}
