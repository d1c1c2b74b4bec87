package dev.agentauth.verifier.log;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.verifier.Canonicalizer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The receipt log's hashes (RFC 9162 §2.1.1): a leaf is SHA-256 of {@code 0x00} followed by the
 * canonical bytes of a signed receipt ({@code signature} member included); an interior node is
 * SHA-256 of {@code 0x01}, the left child and the right child; the empty tree's root is SHA-256 of
 * no bytes.
 */
public final class LogHash {

  /** Bytes in every hash of the log. */
  public static final int SIZE = 32;

  private static final byte[] EMPTY = sha256(new byte[0]);

  private LogHash() {}

  /** Returns the root hash of the empty tree, SHA-256 of no bytes (a fresh copy). */
  public static byte[] emptyRoot() {
    return EMPTY.clone();
  }

  /**
   * Returns the leaf hash of a signed receipt already in canonical form.
   *
   * @param canonicalSignedReceipt the canonical UTF-8 bytes of the signed receipt
   */
  public static byte[] leaf(byte[] canonicalSignedReceipt) {
    MessageDigest digest = digest();
    digest.update((byte) 0x00);
    digest.update(canonicalSignedReceipt);
    return digest.digest();
  }

  /**
   * Returns the leaf hash of a signed receipt, canonicalized as {@link Canonicalizer} defines.
   *
   * @throws dev.agentauth.verifier.CanonicalizationException if the JSON has no canonical form
   */
  public static byte[] leaf(JsonNode signedReceipt) {
    return leaf(Canonicalizer.canonicalize(signedReceipt));
  }

  /** Returns the hash of an interior node from its left and right children's hashes. */
  public static byte[] node(byte[] left, byte[] right) {
    MessageDigest digest = digest();
    digest.update((byte) 0x01);
    digest.update(left);
    digest.update(right);
    return digest.digest();
  }

  static byte[] sha256(byte[] bytes) {
    return digest().digest(bytes);
  }

  static MessageDigest digest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }
}
