package dev.agentauth.verifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ReceiptVerifier#verifyAll} and {@link ChainVerifier#verify(List,
 * java.util.concurrent.Executor)}: the same results as one by one, in input order.
 */
class ParallelVerificationTest {

  private final ExecutorService pool = Executors.newFixedThreadPool(3);

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  /** Every public vector, accepted and rejected, several times over, plus a null and non-JSON. */
  private static List<String> vectorTexts() {
    List<String> texts = new ArrayList<>();
    JsonNode vectors = Fixtures.vectors();
    for (int round = 0; round < 5; round++) {
      for (String group : new String[] {"should_verify", "should_reject"}) {
        vectors.get(group).forEach(v -> texts.add(Fixtures.json(v.get("receipt"))));
      }
    }
    texts.add(null);
    texts.add("not json");
    return texts;
  }

  @Test
  void verifyAllGivesTheSequentialResultsInInputOrder() {
    ReceiptVerifier verifier = Fixtures.vectorVerifier();
    List<String> texts = vectorTexts();

    List<VerificationResult> parallel = verifier.verifyAll(texts, pool);

    List<VerificationResult> sequential = texts.stream().map(verifier::verify).toList();
    assertThat(parallel).isEqualTo(sequential);
    assertThat(parallel).hasSize(texts.size()).anyMatch(VerificationResult::valid);
    assertThat(parallel).anyMatch(r -> !r.valid());
  }

  @Test
  void aChainVerifiedOnAnExecutorGetsTheSequentialReport() {
    ChainVerifier chains = new ChainVerifier(Fixtures.verifier());
    ObjectNode tampered = Fixtures.signed(Fixtures.scopeReceipt());
    tampered.put("user_id", "user_evil");
    List<String> chain = new ArrayList<>();
    chain.add(Fixtures.json(Fixtures.signed(Fixtures.scopeReceipt()))); // before the create
    chain.add(Fixtures.json(Fixtures.signed(Fixtures.createReceipt())));
    for (int i = 0; i < 50; i++) {
      chain.add(Fixtures.json(i == 20 ? tampered : Fixtures.signed(Fixtures.scopeReceipt())));
    }
    chain.add(Fixtures.json(Fixtures.signed(Fixtures.revokeReceipt())));

    ChainReport parallel = chains.verify(chain, pool);

    ChainReport sequential = chains.verify(chain);
    assertThat(parallel).isEqualTo(sequential);
    assertThat(parallel.problems())
        .extracting(ChainProblem::kind)
        .contains(ChainProblem.Kind.CREATE_NOT_FIRST, ChainProblem.Kind.INVALID_RECEIPT);
  }

  @Test
  void anEmptyListNeedsNoThread() {
    assertThat(Fixtures.verifier().verifyAll(List.of(), pool)).isEmpty();
  }

  @Test
  void aRefusingExecutorIsReported() {
    pool.shutdown();

    assertThatThrownBy(() -> Fixtures.verifier().verifyAll(List.of("{}"), pool))
        .isInstanceOf(RejectedExecutionException.class);
  }
}
