package dev.agentauth.verifier.log;

import java.util.ArrayList;
import java.util.List;

/**
 * Computes a log's root hash from its leaf hashes in order, in memory logarithmic in the number of
 * leaves: it keeps the roots of the perfect subtrees the leaves so far form (RFC 9162 §2.1.1's
 * tree, built left to right). Not thread-safe.
 *
 * <pre>{@code
 * MerkleRoot tree = new MerkleRoot();
 * for (JsonNode receipt : entries) tree.add(LogHash.leaf(receipt));
 * byte[] root = tree.root();
 * }</pre>
 */
public final class MerkleRoot {

  /** Roots of perfect subtrees, largest first; subtree i has 2^k leaves for the bits of size. */
  private final List<byte[]> stack = new ArrayList<>();

  private long size;

  /** Creates the empty tree. */
  public MerkleRoot() {}

  /**
   * Appends a leaf.
   *
   * @param leafHash the leaf's 32-byte hash ({@link LogHash#leaf})
   */
  public void add(byte[] leafHash) {
    if (leafHash == null || leafHash.length != LogHash.SIZE) {
      throw new IllegalArgumentException("a leaf hash is " + LogHash.SIZE + " bytes");
    }
    byte[] carry = leafHash.clone();
    long n = size;
    while ((n & 1) == 1) {
      carry = LogHash.node(stack.remove(stack.size() - 1), carry);
      n >>= 1;
    }
    stack.add(carry);
    size++;
  }

  /** The number of leaves added. */
  public long size() {
    return size;
  }

  /** The root hash of the leaves added so far ({@link LogHash#emptyRoot} when none). */
  public byte[] root() {
    if (stack.isEmpty()) {
      return LogHash.emptyRoot();
    }
    byte[] root = stack.get(stack.size() - 1);
    for (int i = stack.size() - 2; i >= 0; i--) {
      root = LogHash.node(stack.get(i), root);
    }
    return root.clone();
  }
}
