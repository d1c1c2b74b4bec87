package dev.agentauth.verifier.log;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * Signs notes with an Ed25519 key under a C2SP signed-note key name: the log signs each checkpoint
 * body this way, with the workspace's receipt-signing key under the log's origin. The key hash is
 * the first 4 bytes of SHA-256(name ‖ "\n" ‖ 0x01 ‖ public key). Holds the seed: do not log it.
 */
public final class NoteSigner {

  private final String keyName;
  private final byte[] seed;
  private final byte[] publicKey;
  private final int keyHash;

  private NoteSigner(String keyName, byte[] seed) {
    this.keyName = NoteFormat.requireName(keyName, "key name");
    this.seed = seed.clone();
    this.publicKey = NoteFormat.publicKey(this.seed);
    this.keyHash = keyHash(keyName, publicKey);
  }

  /**
   * Creates a signer.
   *
   * @param keyName the signed-note key name (for a checkpoint, the log's origin)
   * @param seed32 the 32-byte Ed25519 private key seed (copied)
   * @throws LogVerificationException if the name is not a valid key name
   * @throws IllegalArgumentException if the seed is not 32 bytes
   */
  public static NoteSigner ed25519(String keyName, byte[] seed32) {
    Objects.requireNonNull(seed32, "seed32");
    return new NoteSigner(keyName, seed32);
  }

  /** The key hash of an Ed25519 signed-note key: first 4 bytes of SHA-256(name‖\n‖0x01‖key). */
  public static int keyHash(String keyName, byte[] publicKey) {
    return NoteFormat.keyHash(keyName, NoteFormat.ALG_ED25519, publicKey);
  }

  /** The key name this signer signs under. */
  public String keyName() {
    return keyName;
  }

  /** The 32-byte Ed25519 public key. */
  public byte[] publicKey() {
    return publicKey.clone();
  }

  /**
   * Signs a note text and returns the whole signed note: the text, an empty line and one signature
   * line.
   *
   * @param text the note text, non-empty, ending with a newline, no control character but newline
   * @throws LogVerificationException if the text is not a valid note text
   */
  public String sign(String text) {
    byte[] signature = NoteFormat.sign(seed, text.getBytes(StandardCharsets.UTF_8));
    SignedNote.Signature line = new SignedNote.Signature(keyName, keyHash, signature);
    return new SignedNote(text, List.of(line)).format();
  }

  /** The key hash as 4 big-endian bytes. */
  static byte[] bytes(int keyHash) {
    return ByteBuffer.allocate(4).putInt(keyHash).array();
  }

  @Override
  public String toString() {
    return "NoteSigner[" + keyName + "+" + NoteFormat.hex(keyHash) + "]";
  }
}
