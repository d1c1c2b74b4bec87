package dev.agentauth.verifier.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The verifier against the literal RFC 9162 definitions ({@link NaiveMerkle}): every proof the
 * definitions produce for sizes 1..64 verifies, and every damaged one is refused.
 */
class MerkleProofsTest {

  private static final int MAX = 64;

  /** ROOTS[n] = MTH of the first n of 2 * MAX leaves. */
  private static final byte[][] ROOTS = new byte[2 * MAX + 1][];

  static {
    List<byte[]> all = NaiveMerkle.leaves(2 * MAX);
    for (int n = 0; n <= 2 * MAX; n++) {
      ROOTS[n] = NaiveMerkle.mth(all.subList(0, n));
    }
  }

  private static byte[] flip(byte[] hash, int bit) {
    byte[] copy = hash.clone();
    copy[(bit / 8) % copy.length] ^= (byte) (1 << (bit % 8));
    return copy;
  }

  private static List<byte[]> with(List<byte[]> proof, int i, byte[] hash) {
    List<byte[]> copy = new ArrayList<>(proof);
    copy.set(i, hash);
    return copy;
  }

  @Test
  void leafAndNodeHashesAreRfc9162s() {
    byte[] data = "x".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    assertThat(LogHash.leaf(data)).isEqualTo(NaiveMerkle.leafHash(data));
    byte[] a = NaiveMerkle.sha256(new byte[] {1});
    byte[] b = NaiveMerkle.sha256(new byte[] {2});
    assertThat(LogHash.node(a, b)).isEqualTo(NaiveMerkle.nodeHash(a, b));
    assertThat(LogHash.emptyRoot()).isEqualTo(NaiveMerkle.sha256());
  }

  @Test
  void merkleRootMatchesTheRecursiveDefinitionForEverySizeUpTo64AndSome() {
    for (int n : new int[] {0, 1, 2, 3, 4, 5, 7, 8, 9, 31, 32, 33, 63, 64, 65, 100, 1000}) {
      List<byte[]> d = NaiveMerkle.leaves(n);
      MerkleRoot tree = new MerkleRoot();
      for (int i = 0; i < n; i++) {
        tree.add(LogHash.leaf(d.get(i)));
        if (i < MAX) {
          assertThat(tree.root()).isEqualTo(NaiveMerkle.mth(d.subList(0, i + 1)));
        }
      }
      assertThat(tree.size()).isEqualTo(n);
      assertThat(tree.root()).as("size %d", n).isEqualTo(NaiveMerkle.mth(d));
    }
  }

  @Test
  void everyInclusionProofOfEverySizeUpTo64Verifies() {
    List<byte[]> all = NaiveMerkle.leaves(MAX);
    for (int n = 1; n <= MAX; n++) {
      List<byte[]> d = all.subList(0, n);
      byte[] root = NaiveMerkle.mth(d);
      for (int m = 0; m < n; m++) {
        MerkleProofs.verifyInclusion(
            m, n, NaiveMerkle.leafHash(d.get(m)), NaiveMerkle.path(m, d), root);
      }
    }
  }

  @Test
  void everyDamagedInclusionProofIsRefused() {
    List<byte[]> all = NaiveMerkle.leaves(MAX + 1);
    for (int n = 1; n <= MAX; n++) {
      List<byte[]> d = all.subList(0, n);
      byte[] root = NaiveMerkle.mth(d);
      for (int m = 0; m < n; m++) {
        byte[] leaf = NaiveMerkle.leafHash(d.get(m));
        List<byte[]> path = NaiveMerkle.path(m, d);
        String at = "index " + m + " size " + n;
        for (int i = 0; i < path.size(); i++) {
          for (int bit : new int[] {0, 7, 100 + m, 255}) {
            assertInclusionRefused(m, n, leaf, with(path, i, flip(path.get(i), bit)), root, at);
          }
        }
        assertInclusionRefused(m, n, flip(leaf, m), path, root, at + " leaf");
        assertInclusionRefused(m, n, leaf, path, flip(root, n), at + " root");
        for (long wrong : new long[] {m - 1L, m + 1L, m ^ 1L, m + (long) n, -1}) {
          if (wrong != m) {
            assertInclusionRefused(wrong, n, leaf, path, root, at + " as index " + wrong);
          }
        }
        // A size is only ever checked with its own root (both come from one signed checkpoint).
        for (int size : new int[] {n - 1, n + 1, 2 * n}) {
          if (size > m) {
            assertInclusionRefused(m, size, leaf, path, ROOTS[size], at + " as size " + size);
          }
        }
        assertInclusionRefused(m, 0, leaf, path, root, at + " as size 0");
        if (!path.isEmpty()) {
          assertInclusionRefused(
              m, n, leaf, path.subList(0, path.size() - 1), root, at + " truncated");
          assertInclusionRefused(m, n, leaf, path.subList(1, path.size()), root, at + " no first");
        }
        List<byte[]> extra = new ArrayList<>(path);
        extra.add(NaiveMerkle.sha256(new byte[] {9}));
        assertInclusionRefused(m, n, leaf, extra, root, at + " extra hash");
        extra = new ArrayList<>(path);
        extra.add(0, leaf);
        assertInclusionRefused(m, n, leaf, extra, root, at + " extra first hash");
      }
    }
  }

  private static void assertInclusionRefused(
      long m, long n, byte[] leaf, List<byte[]> path, byte[] root, String what) {
    assertThatExceptionOfType(LogVerificationException.class)
        .as(what)
        .isThrownBy(() -> MerkleProofs.verifyInclusion(m, n, leaf, path, root))
        .withMessageContaining("inclusion proof");
  }

  @Test
  void everyConsistencyProofBetweenSizesUpTo64Verifies() {
    List<byte[]> all = NaiveMerkle.leaves(MAX);
    byte[][] roots = new byte[MAX + 1][];
    for (int n = 1; n <= MAX; n++) {
      roots[n] = NaiveMerkle.mth(all.subList(0, n));
    }
    for (int n = 1; n <= MAX; n++) {
      List<byte[]> d = all.subList(0, n);
      for (int m = 1; m <= n; m++) {
        MerkleProofs.verifyConsistency(m, n, roots[m], roots[n], NaiveMerkle.proof(m, d));
      }
    }
  }

  @Test
  void everyDamagedConsistencyProofIsRefused() {
    List<byte[]> all = NaiveMerkle.leaves(MAX + 1);
    byte[][] roots = ROOTS;
    for (int n = 1; n <= MAX; n++) {
      List<byte[]> d = all.subList(0, n);
      for (int m = 1; m <= n; m++) {
        List<byte[]> proof = NaiveMerkle.proof(m, d);
        String at = "from " + m + " to " + n;
        for (int i = 0; i < proof.size(); i++) {
          for (int bit : new int[] {0, 7, 100 + m, 255}) {
            assertConsistencyRefused(
                m, n, roots[m], roots[n], with(proof, i, flip(proof.get(i), bit)), at);
          }
        }
        assertConsistencyRefused(m, n, flip(roots[m], n), roots[n], proof, at + " root1");
        assertConsistencyRefused(m, n, roots[m], flip(roots[n], m), proof, at + " root2");
        for (int size1 : new int[] {m - 1, m + 1}) {
          if (size1 >= 1 && size1 <= n) {
            assertConsistencyRefused(
                size1, n, roots[size1], roots[n], proof, at + " size1 " + size1);
          }
        }
        assertConsistencyRefused(0, n, roots[m], roots[n], proof, at + " size1 0");
        for (int size2 : new int[] {n - 1, n + 1, 2 * n}) {
          if (size2 >= m && size2 != n) {
            assertConsistencyRefused(
                m, size2, roots[m], roots[size2], proof, at + " size2 " + size2);
          }
        }
        if (!proof.isEmpty()) {
          assertConsistencyRefused(
              m, n, roots[m], roots[n], proof.subList(0, proof.size() - 1), at + " truncated");
          assertConsistencyRefused(
              m, n, roots[m], roots[n], proof.subList(1, proof.size()), at + " no first");
          assertConsistencyRefused(m, n, roots[n], roots[m], proof, at + " roots swapped");
        }
        List<byte[]> extra = new ArrayList<>(proof);
        extra.add(NaiveMerkle.sha256(new byte[] {9}));
        assertConsistencyRefused(m, n, roots[m], roots[n], extra, at + " extra hash");
        extra = new ArrayList<>(proof);
        extra.add(0, roots[m]);
        assertConsistencyRefused(m, n, roots[m], roots[n], extra, at + " extra first hash");
        if (m < n) {
          // A different history: the same first tree, a changed later leaf.
          List<byte[]> other = new ArrayList<>(d);
          other.set(n - 1, "forked".getBytes(java.nio.charset.StandardCharsets.UTF_8));
          assertConsistencyRefused(
              m, n, roots[m], NaiveMerkle.mth(other), proof, at + " forked second tree");
        }
      }
    }
  }

  private static void assertConsistencyRefused(
      long m, long n, byte[] root1, byte[] root2, List<byte[]> proof, String what) {
    assertThatExceptionOfType(LogVerificationException.class)
        .as(what)
        .isThrownBy(() -> MerkleProofs.verifyConsistency(m, n, root1, root2, proof))
        .withMessageContaining("consistency proof");
  }

  @Test
  void sizesOutOfRangeAndHashesOfTheWrongLengthAreRefused() {
    byte[] h = NaiveMerkle.sha256();
    assertThatThrownBy(() -> MerkleProofs.verifyConsistency(0, 1, h, h, List.of()))
        .hasMessageContaining("1 <= first <= second");
    assertThatThrownBy(() -> MerkleProofs.verifyConsistency(2, 1, h, h, List.of()))
        .hasMessageContaining("1 <= first <= second");
    assertThatThrownBy(() -> MerkleProofs.verifyInclusion(0, 1, new byte[31], List.of(), h))
        .hasMessageContaining("leaf hash must be 32 bytes");
    assertThatThrownBy(() -> MerkleProofs.verifyInclusion(0, 2, h, List.of(new byte[33]), h))
        .hasMessageContaining("proof hash 0 must be 32 bytes");
    List<byte[]> tooLong = new ArrayList<>();
    for (int i = 0; i <= MerkleProofs.MAX_PROOF; i++) {
      tooLong.add(h);
    }
    assertThatThrownBy(() -> MerkleProofs.verifyInclusion(0, Long.MAX_VALUE, h, tooLong, h))
        .hasMessageContaining("at most " + MerkleProofs.MAX_PROOF);
  }
}
