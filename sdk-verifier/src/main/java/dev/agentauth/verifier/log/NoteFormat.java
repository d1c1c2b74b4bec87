package dev.agentauth.verifier.log;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;

/** The shared rules of C2SP signed notes: key names, key hashes, strict base64, Ed25519. */
final class NoteFormat {

  /** Algorithm byte of an Ed25519 signed-note key (C2SP signed-note). */
  static final byte ALG_ED25519 = 0x01;

  /** Algorithm byte of an Ed25519 timestamped cosignature key (C2SP tlog-cosignature v1). */
  static final byte ALG_COSIGNATURE_V1 = 0x04;

  /** The em dash (U+2014) and space that start every signature line. */
  static final String SIGNATURE_PREFIX = "\u2014 ";

  /** Longest key name accepted, in characters. */
  static final int MAX_NAME = 256;

  private NoteFormat() {}

  /**
   * Checks a key name: non-empty, at most {@value #MAX_NAME} characters, no whitespace, no {@code
   * +}, no control character, no unpaired surrogate.
   */
  static String requireName(String name, String what) {
    if (name == null || name.isEmpty()) {
      throw new LogVerificationException(what + " is empty");
    }
    if (name.length() > MAX_NAME) {
      throw new LogVerificationException(
          what + " is longer than " + MAX_NAME + " characters (" + name.length() + ")");
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '+' || Character.isWhitespace(c) || Character.isSpaceChar(c) || c < 0x20) {
        throw new LogVerificationException(
            what + " must not contain spaces, '+' or control characters: " + show(name));
      }
      if (Character.isSurrogate(c)) {
        boolean paired =
            Character.isHighSurrogate(c)
                && i + 1 < name.length()
                && Character.isLowSurrogate(name.charAt(i + 1));
        if (!paired) {
          throw new LogVerificationException(what + " holds an unpaired surrogate");
        }
        i++;
      }
    }
    return name;
  }

  /** First 4 bytes of SHA-256(name ‖ "\n" ‖ alg ‖ publicKey), as a big-endian int. */
  static int keyHash(String name, byte alg, byte[] publicKey) {
    MessageDigest digest = LogHash.digest();
    digest.update(name.getBytes(StandardCharsets.UTF_8));
    digest.update((byte) '\n');
    digest.update(alg);
    digest.update(publicKey);
    return ByteBuffer.wrap(digest.digest()).getInt();
  }

  /** The 8 lowercase hex digits of a key hash. */
  static String hex(int keyHash) {
    return String.format("%08x", keyHash);
  }

  /** Decodes standard padded base64 strictly: the text must be exactly what encoding gives. */
  static byte[] base64(String text, String what) {
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw new LogVerificationException(what + " is not valid base64: " + show(text));
    }
    if (!Base64.getEncoder().encodeToString(bytes).equals(text)) {
      throw new LogVerificationException(
          what + " is not canonical padded standard base64: " + show(text));
    }
    return bytes;
  }

  static String base64(byte[] bytes) {
    return Base64.getEncoder().encodeToString(bytes);
  }

  /** The public key of a 32-byte Ed25519 seed. */
  static byte[] publicKey(byte[] seed) {
    return privateKey(seed).generatePublicKey().getEncoded();
  }

  static Ed25519PrivateKeyParameters privateKey(byte[] seed) {
    if (seed == null || seed.length != Ed25519PrivateKeyParameters.KEY_SIZE) {
      throw new IllegalArgumentException(
          "an Ed25519 seed is 32 bytes; got " + (seed == null ? "null" : seed.length + " bytes"));
    }
    return new Ed25519PrivateKeyParameters(seed, 0);
  }

  static byte[] sign(byte[] seed, byte[] message) {
    Ed25519Signer signer = new Ed25519Signer();
    signer.init(true, privateKey(seed));
    signer.update(message, 0, message.length);
    return signer.generateSignature();
  }

  /** Whether {@code signature} is a valid Ed25519 signature of {@code message}; never throws. */
  static boolean verify(byte[] publicKey, byte[] message, byte[] signature) {
    if (signature.length != Ed25519PrivateKeyParameters.SIGNATURE_SIZE) {
      return false;
    }
    Ed25519PublicKeyParameters key;
    try {
      key = new Ed25519PublicKeyParameters(publicKey, 0);
    } catch (RuntimeException e) {
      return false;
    }
    Ed25519Signer verifier = new Ed25519Signer();
    verifier.init(false, key);
    verifier.update(message, 0, message.length);
    return verifier.verifySignature(signature);
  }

  static byte[] concat(byte[]... parts) {
    int length = 0;
    for (byte[] part : parts) {
      length += part.length;
    }
    byte[] all = new byte[length];
    int at = 0;
    for (byte[] part : parts) {
      System.arraycopy(part, 0, all, at, part.length);
      at += part.length;
    }
    return all;
  }

  static byte[] slice(byte[] bytes, int from, int to) {
    return Arrays.copyOfRange(bytes, from, to);
  }

  /** A short, quoted, printable form of untrusted text for messages. */
  static String show(String text) {
    StringBuilder out = new StringBuilder("\"");
    int limit = Math.min(text.length(), 80);
    for (int i = 0; i < limit; i++) {
      char c = text.charAt(i);
      if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.append(text.length() > limit ? "\"..." : "\"").toString();
  }
}
