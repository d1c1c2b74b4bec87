package dev.agentauth.verifier.log;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Objects;

/**
 * A witness's signing key: cosigns checkpoints as C2SP tlog-cosignature v1 lines. Its private key
 * file form (an skey) is {@code PRIVATE+KEY+<name>+<8 hex digits key hash>+<base64(0x04 ‖ 32-byte
 * seed)>}. Holds the seed: do not log it.
 */
public final class CosignatureSigner {

  private static final String SKEY_PREFIX = "PRIVATE+KEY+";

  private final byte[] seed;
  private final WitnessKey key;

  private CosignatureSigner(String name, byte[] seed) {
    this.seed = seed.clone();
    this.key = WitnessKey.of(name, NoteFormat.publicKey(this.seed));
  }

  /**
   * Creates a signer from a witness name and a 32-byte Ed25519 seed (copied).
   *
   * @throws LogVerificationException if the name is not a valid key name
   * @throws IllegalArgumentException if the seed is not 32 bytes
   */
  public static CosignatureSigner ed25519(String name, byte[] seed32) {
    Objects.requireNonNull(seed32, "seed32");
    NoteFormat.requireName(name, "witness name");
    return new CosignatureSigner(name, seed32);
  }

  /** Creates a signer with a new random key. */
  public static CosignatureSigner generate(String name, SecureRandom random) {
    byte[] seed = new byte[32];
    random.nextBytes(seed);
    return ed25519(name, seed);
  }

  /**
   * Parses an skey strictly (surrounding whitespace such as a final newline is ignored); the key
   * hash must match the name and the key.
   *
   * @throws LogVerificationException naming what is malformed, never showing the key
   */
  public static CosignatureSigner fromSkey(String skey) {
    Objects.requireNonNull(skey, "skey");
    String text = skey.strip();
    if (text.length() > WitnessKey.MAX_VKEY || !text.startsWith(SKEY_PREFIX)) {
      throw new LogVerificationException(
          "witness private key must be PRIVATE+KEY+<name>+<8 hex digits>+<base64 key>");
    }
    String[] parts = text.substring(SKEY_PREFIX.length()).split("\\+", 3);
    if (parts.length != 3) {
      throw new LogVerificationException(
          "witness private key must be PRIVATE+KEY+<name>+<8 hex digits>+<base64 key>");
    }
    String name = NoteFormat.requireName(parts[0], "witness name");
    int keyHash = WitnessKey.parseHex(parts[1], "witness private key hash");
    byte[] key;
    try {
      key = NoteFormat.base64(parts[2], "x");
    } catch (LogVerificationException e) {
      throw new LogVerificationException("witness private key is not canonical padded base64");
    }
    if (key.length != 33 || key[0] != NoteFormat.ALG_COSIGNATURE_V1) {
      throw new LogVerificationException(
          "witness private key must be 0x04 (tlog-cosignature v1) followed by a 32-byte seed");
    }
    CosignatureSigner signer = new CosignatureSigner(name, NoteFormat.slice(key, 1, 33));
    if (signer.key.keyHash() != keyHash) {
      throw new LogVerificationException(
          "witness private key hash " + parts[1] + " does not match its name and key");
    }
    return signer;
  }

  /** The matching public key. */
  public WitnessKey witnessKey() {
    return key;
  }

  /** This key as an skey, for a private key file. */
  public String skey() {
    return SKEY_PREFIX
        + key.name()
        + "+"
        + NoteFormat.hex(key.keyHash())
        + "+"
        + NoteFormat.base64(NoteFormat.concat(new byte[] {NoteFormat.ALG_COSIGNATURE_V1}, seed));
  }

  /**
   * Cosigns a checkpoint.
   *
   * @param checkpoint the checkpoint, already verified by the caller
   * @param timestamp seconds since the epoch, not negative
   * @return the cosignature line, {@code — <name> <base64>} ending with a newline
   */
  public String cosign(Checkpoint checkpoint, long timestamp) {
    if (timestamp < 0) {
      throw new IllegalArgumentException("timestamp must not be negative: " + timestamp);
    }
    byte[] signature = NoteFormat.sign(seed, WitnessKey.message(checkpoint, timestamp));
    byte[] time = ByteBuffer.allocate(8).putLong(timestamp).array();
    return new SignedNote.Signature(key.name(), key.keyHash(), NoteFormat.concat(time, signature))
        .line();
  }

  @Override
  public String toString() {
    return "CosignatureSigner[" + key.name() + "+" + NoteFormat.hex(key.keyHash()) + "]";
  }
}
