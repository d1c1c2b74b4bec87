package dev.agentauth.verifier.log;

import java.security.MessageDigest;
import java.util.List;
import java.util.Objects;

/**
 * Verifies Merkle inclusion and consistency proofs as RFC 9162 §2.1.3.2 and §2.1.4.2 define, with
 * the hashes of {@link LogHash}. Every hash must be 32 bytes; a proof holds at most {@value
 * #MAX_PROOF} hashes. Each method returns normally when the proof holds and throws {@link
 * LogVerificationException} saying why when it does not. Work is linear in the proof's length.
 */
public final class MerkleProofs {

  /** Most hashes a proof of a tree of at most 2^63 - 1 leaves can need. */
  public static final int MAX_PROOF = 126;

  private MerkleProofs() {}

  /**
   * Verifies that the leaf {@code leafHash} is at {@code index} in the tree of {@code size} leaves
   * whose root is {@code root} (RFC 9162 §2.1.3.2).
   *
   * @throws LogVerificationException if the proof does not hold
   */
  public static void verifyInclusion(
      long index, long size, byte[] leafHash, List<byte[]> proof, byte[] root) {
    requireHash(leafHash, "leaf hash");
    requireHash(root, "root hash");
    requireProof(proof);
    if (index < 0 || size <= 0 || index >= size) {
      throw new LogVerificationException(
          "inclusion proof: leaf index " + index + " is not within a tree of size " + size);
    }
    long fn = index;
    long sn = size - 1;
    byte[] r = leafHash;
    for (byte[] p : proof) {
      if (sn == 0) {
        throw new LogVerificationException(
            "inclusion proof for index "
                + index
                + " in size "
                + size
                + " has too many hashes ("
                + proof.size()
                + ")");
      }
      if ((fn & 1) == 1 || fn == sn) {
        r = LogHash.node(p, r);
        while ((fn & 1) == 0 && fn != 0) {
          fn >>= 1;
          sn >>= 1;
        }
      } else {
        r = LogHash.node(r, p);
      }
      fn >>= 1;
      sn >>= 1;
    }
    if (sn != 0) {
      throw new LogVerificationException(
          "inclusion proof for index "
              + index
              + " in size "
              + size
              + " has too few hashes ("
              + proof.size()
              + ")");
    }
    if (!MessageDigest.isEqual(r, root)) {
      throw new LogVerificationException(
          "inclusion proof for index "
              + index
              + " in size "
              + size
              + " does not lead to the root hash");
    }
  }

  /**
   * Verifies that the tree of {@code size1} leaves with root {@code root1} is a prefix of the tree
   * of {@code size2} leaves with root {@code root2} (RFC 9162 §2.1.4.2). When the sizes are equal
   * the proof must be empty and the roots equal. A proof from the empty tree is refused: it would
   * prove nothing.
   *
   * @throws LogVerificationException if the proof does not hold
   */
  public static void verifyConsistency(
      long size1, long size2, byte[] root1, byte[] root2, List<byte[]> proof) {
    requireHash(root1, "first root hash");
    requireHash(root2, "second root hash");
    requireProof(proof);
    if (size1 < 1 || size2 < size1) {
      throw new LogVerificationException(
          "consistency proof: sizes must satisfy 1 <= first <= second, got "
              + size1
              + " and "
              + size2);
    }
    String what = "consistency proof from size " + size1 + " to " + size2;
    if (size1 == size2) {
      if (!proof.isEmpty()) {
        throw new LogVerificationException(
            what + " must be empty, has " + proof.size() + " hashes");
      }
      if (!MessageDigest.isEqual(root1, root2)) {
        throw new LogVerificationException(what + ": the two roots of the same size differ");
      }
      return;
    }
    if (proof.isEmpty()) {
      throw new LogVerificationException(what + " is empty");
    }
    int next = 0;
    byte[] first;
    if (Long.bitCount(size1) == 1) {
      first = root1;
    } else {
      first = proof.get(next++);
    }
    long fn = size1 - 1;
    long sn = size2 - 1;
    while ((fn & 1) == 1) {
      fn >>= 1;
      sn >>= 1;
    }
    byte[] fr = first;
    byte[] sr = first;
    for (; next < proof.size(); next++) {
      byte[] c = proof.get(next);
      if (sn == 0) {
        throw new LogVerificationException(what + " has too many hashes (" + proof.size() + ")");
      }
      if ((fn & 1) == 1 || fn == sn) {
        fr = LogHash.node(c, fr);
        sr = LogHash.node(c, sr);
        while ((fn & 1) == 0 && fn != 0) {
          fn >>= 1;
          sn >>= 1;
        }
      } else {
        sr = LogHash.node(sr, c);
      }
      fn >>= 1;
      sn >>= 1;
    }
    if (sn != 0) {
      throw new LogVerificationException(what + " has too few hashes (" + proof.size() + ")");
    }
    if (!MessageDigest.isEqual(fr, root1)) {
      throw new LogVerificationException(what + " does not lead to the first root hash");
    }
    if (!MessageDigest.isEqual(sr, root2)) {
      throw new LogVerificationException(what + " does not lead to the second root hash");
    }
  }

  private static void requireProof(List<byte[]> proof) {
    Objects.requireNonNull(proof, "proof");
    if (proof.size() > MAX_PROOF) {
      throw new LogVerificationException(
          "proof has " + proof.size() + " hashes; at most " + MAX_PROOF);
    }
    for (int i = 0; i < proof.size(); i++) {
      requireHash(proof.get(i), "proof hash " + i);
    }
  }

  private static void requireHash(byte[] hash, String what) {
    if (hash == null || hash.length != LogHash.SIZE) {
      throw new LogVerificationException(
          what
              + " must be "
              + LogHash.SIZE
              + " bytes, got "
              + (hash == null ? "none" : hash.length + " bytes"));
    }
  }
}
