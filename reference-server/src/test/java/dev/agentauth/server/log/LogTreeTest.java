package dev.agentauth.server.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.server.store.LogTx.Node;
import dev.agentauth.server.store.LogTx.NodeId;
import dev.agentauth.verifier.log.LogHash;
import dev.agentauth.verifier.log.LogVerificationException;
import dev.agentauth.verifier.log.MerkleProofs;
import dev.agentauth.verifier.log.MerkleRoot;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The server's tree arithmetic against the verifier's independent implementation: roots, inclusion
 * and consistency proofs built from stored perfect subtrees (appended in batches of random sizes)
 * verify with {@link MerkleProofs} for every size up to 130 and every pair of sizes.
 */
class LogTreeTest {
  private static byte[] leaf(long i) {
    return LogHash.leaf(("leaf " + i).getBytes(StandardCharsets.UTF_8));
  }

  /** Every node of a log of {@code n} leaves, appended in random batches. */
  private static Map<NodeId, byte[]> build(int n, Random random) {
    Map<NodeId, byte[]> nodes = new HashMap<>();
    long size = 0;
    while (size < n) {
      int batch = (int) Math.min(n - size, 1 + random.nextInt(9));
      List<byte[]> leaves = new ArrayList<>();
      for (int i = 0; i < batch; i++) {
        leaves.add(leaf(size + i));
      }
      Map<NodeId, byte[]> frontier = new HashMap<>();
      for (NodeId id : LogTree.decompose(0, size)) {
        frontier.put(id, nodes.get(id));
      }
      for (Node node : LogTree.appended(size, leaves, frontier)) {
        assertThat(nodes.put(node.id(), node.hash()))
            .as("node %s written once", node.id())
            .isNull();
      }
      size += batch;
    }
    return nodes;
  }

  private static byte[] expectedRoot(long n) {
    MerkleRoot root = new MerkleRoot();
    for (long i = 0; i < n; i++) {
      root.add(leaf(i));
    }
    return root.root();
  }

  @Test
  void rootsAndProofsOfEverySizeUpTo130VerifyWithTheVerifier() {
    int max = 130;
    Map<NodeId, byte[]> nodes = build(max, new Random(31));
    assertThat(nodes).hasSize(2 * max - Long.bitCount(max));
    byte[][] roots = new byte[max + 1][];
    for (int n = 0; n <= max; n++) {
      roots[n] = LogTree.hash(new LogTree.Range(0, n), nodes);
      assertThat(roots[n]).as("root of %d", n).containsExactly(expectedRoot(n));
    }
    for (int n = 1; n <= max; n++) {
      for (int m = 0; m < n; m++) {
        List<LogTree.Range> ranges = LogTree.inclusion(m, n);
        assertThat(LogTree.needed(ranges).size()).isLessThanOrEqualTo(2 * 8);
        MerkleProofs.verifyInclusion(m, n, leaf(m), LogTree.hashes(ranges, nodes), roots[n]);
      }
      for (int m = 1; m <= n; m++) {
        List<byte[]> proof = LogTree.hashes(LogTree.consistency(m, n), nodes);
        MerkleProofs.verifyConsistency(m, n, roots[m], roots[n], proof);
      }
    }
  }

  @Test
  void aWrongProofFailsTheVerifier() {
    Map<NodeId, byte[]> nodes = build(20, new Random(7));
    byte[] root = LogTree.hash(new LogTree.Range(0, 20), nodes);
    List<byte[]> proof = LogTree.hashes(LogTree.inclusion(5, 20), nodes);
    assertThatThrownBy(() -> MerkleProofs.verifyInclusion(6, 20, leaf(5), proof, root))
        .isInstanceOf(LogVerificationException.class);
  }

  @Test
  void aMillionLeafProofNeedsFewNodes() {
    long n = 1_000_003;
    for (long m : new long[] {0, 1, 524_288, 999_999, n - 1}) {
      assertThat(LogTree.needed(LogTree.inclusion(m, n)).size()).isLessThanOrEqualTo(40);
      assertThat(LogTree.needed(LogTree.consistency(m + 1, n)).size()).isLessThanOrEqualTo(80);
    }
    assertThat(LogTree.decompose(0, n)).hasSize(Long.bitCount(n));
  }

  @Test
  void badArgumentsAreRefused() {
    assertThatThrownBy(() -> LogTree.inclusion(3, 3)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LogTree.consistency(0, 3))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LogTree.consistency(4, 3))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LogTree.hash(new LogTree.Range(0, 3), Map.of()))
        .isInstanceOf(IllegalStateException.class);
  }
}
