package dev.agentauth.verifier.log;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * A witness's public key, as a C2SP vkey: {@code <name>+<8 hex digits key hash>+<base64(0x04 ‖
 * 32-byte Ed25519 public key)>} (algorithm 0x04: C2SP tlog-cosignature v1). The key hash is the
 * first 4 bytes of SHA-256(name ‖ "\n" ‖ 0x04 ‖ public key).
 *
 * <p>A cosignature line is {@code — <name> base64(key hash ‖ 8-byte big-endian timestamp ‖ 64-byte
 * Ed25519 signature)}, and the signed message is {@code cosignature/v1\ntime <timestamp>\n}
 * followed by the checkpoint body.
 *
 * @param name the witness's name
 * @param keyHash the key hash
 * @param publicKey the 32-byte Ed25519 public key
 */
public record WitnessKey(String name, int keyHash, byte[] publicKey) {

  /** Longest vkey accepted, in characters. */
  static final int MAX_VKEY = 512;

  /** Checks the name, the key's size and the key hash; copies the key. */
  public WitnessKey {
    NoteFormat.requireName(name, "witness name");
    Objects.requireNonNull(publicKey, "publicKey");
    if (publicKey.length != 32) {
      throw new LogVerificationException(
          "witness " + name + ": public key must be 32 bytes, got " + publicKey.length);
    }
    publicKey = publicKey.clone();
    int expected = NoteFormat.keyHash(name, NoteFormat.ALG_COSIGNATURE_V1, publicKey);
    if (expected != keyHash) {
      throw new LogVerificationException(
          "witness "
              + name
              + ": key hash "
              + NoteFormat.hex(keyHash)
              + " does not match the name and key (expected "
              + NoteFormat.hex(expected)
              + ")");
    }
  }

  /** The witness key of a name and a 32-byte public key, with its computed key hash. */
  public static WitnessKey of(String name, byte[] publicKey) {
    NoteFormat.requireName(name, "witness name");
    return new WitnessKey(
        name, NoteFormat.keyHash(name, NoteFormat.ALG_COSIGNATURE_V1, publicKey), publicKey);
  }

  /**
   * Parses a vkey strictly: three {@code +}-separated parts, 8 lowercase hex digits, canonical
   * base64 of 33 bytes starting with 0x04, and a key hash that matches.
   *
   * @throws LogVerificationException naming what is malformed
   */
  public static WitnessKey parseVkey(String vkey) {
    Objects.requireNonNull(vkey, "vkey");
    if (vkey.length() > MAX_VKEY) {
      throw new LogVerificationException("witness key is longer than " + MAX_VKEY + " characters");
    }
    String[] parts = vkey.split("\\+", 3);
    if (parts.length != 3) {
      throw new LogVerificationException(
          "witness key must be <name>+<8 hex digits>+<base64 key>: " + NoteFormat.show(vkey));
    }
    String name = NoteFormat.requireName(parts[0], "witness name");
    int keyHash = parseHex(parts[1], "witness key hash");
    byte[] key = NoteFormat.base64(parts[2], "witness key");
    if (key.length != 33 || key[0] != NoteFormat.ALG_COSIGNATURE_V1) {
      throw new LogVerificationException(
          "witness key "
              + name
              + " must be 0x04 (tlog-cosignature v1) followed by a 32-byte Ed25519 key");
    }
    return new WitnessKey(name, keyHash, NoteFormat.slice(key, 1, 33));
  }

  static int parseHex(String hex, String what) {
    if (hex.length() != 8
        || !hex.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
      throw new LogVerificationException(
          what + " must be 8 lowercase hex digits: " + NoteFormat.show(hex));
    }
    return Integer.parseUnsignedInt(hex, 16);
  }

  @Override
  public byte[] publicKey() {
    return publicKey.clone();
  }

  /** This key as a vkey. */
  public String vkey() {
    return name
        + "+"
        + NoteFormat.hex(keyHash)
        + "+"
        + NoteFormat.base64(
            NoteFormat.concat(new byte[] {NoteFormat.ALG_COSIGNATURE_V1}, publicKey));
  }

  /** Whether a signature line names this key (same name and key hash); says nothing of validity. */
  public boolean matches(SignedNote.Signature signature) {
    return name.equals(signature.keyName()) && keyHash == signature.keyHash();
  }

  /**
   * Verifies a cosignature of this witness over a checkpoint.
   *
   * @param checkpoint the checkpoint the line is meant to cosign
   * @param signature the signature line, which must {@link #matches} this key
   * @return the cosignature's timestamp, in seconds since the epoch
   * @throws LogVerificationException if the line is not this key's or does not verify
   */
  public long verify(Checkpoint checkpoint, SignedNote.Signature signature) {
    if (!matches(signature)) {
      throw new LogVerificationException(
          "signature "
              + signature
              + " is not by witness key "
              + name
              + "+"
              + NoteFormat.hex(keyHash));
    }
    byte[] bytes = signature.signature();
    if (bytes.length != 8 + 64) {
      throw new LogVerificationException(
          "cosignature by "
              + name
              + " must hold an 8-byte timestamp and a 64-byte signature, got "
              + bytes.length
              + " bytes");
    }
    long timestamp = ByteBuffer.wrap(bytes, 0, 8).getLong();
    if (timestamp < 0) {
      throw new LogVerificationException("cosignature by " + name + " has a negative timestamp");
    }
    byte[] message = message(checkpoint, timestamp);
    if (!NoteFormat.verify(publicKey, message, NoteFormat.slice(bytes, 8, bytes.length))) {
      throw new LogVerificationException(
          "cosignature by witness " + name + " does not verify over " + checkpoint);
    }
    return timestamp;
  }

  /** The message a cosignature signs: {@code cosignature/v1\ntime <t>\n} and the body. */
  static byte[] message(Checkpoint checkpoint, long timestamp) {
    return ("cosignature/v1\ntime " + timestamp + "\n" + checkpoint.body())
        .getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WitnessKey k
        && name.equals(k.name)
        && keyHash == k.keyHash
        && Arrays.equals(publicKey, k.publicKey);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, keyHash, Arrays.hashCode(publicKey));
  }

  @Override
  public String toString() {
    return vkey();
  }
}
