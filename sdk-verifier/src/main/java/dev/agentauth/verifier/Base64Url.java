package dev.agentauth.verifier;

/**
 * Strict unpadded base64url (RFC 4648 §5) decoding: no padding, no characters outside the alphabet,
 * no whitespace, and unused trailing bits must be zero, so every byte string has exactly one
 * accepted encoding.
 */
final class Base64Url {

  private static final byte[] DECODE = new byte[128];

  static {
    java.util.Arrays.fill(DECODE, (byte) -1);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    for (int i = 0; i < alphabet.length(); i++) {
      DECODE[alphabet.charAt(i)] = (byte) i;
    }
  }

  private Base64Url() {}

  /**
   * Decodes {@code s}.
   *
   * @throws IllegalArgumentException naming the defect (padding, bad character, bad length,
   *     non-zero trailing bits)
   */
  static byte[] decode(String s) {
    int n = s.length();
    int rem = n & 3;
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c == '=') {
        throw new IllegalArgumentException("padding '=' is not allowed (at index " + i + ")");
      }
      if (c >= 128 || DECODE[c] < 0) {
        throw new IllegalArgumentException(
            "character " + describe(c) + " at index " + i + " is outside the base64url alphabet");
      }
    }
    if (rem == 1) {
      throw new IllegalArgumentException("length " + n + " is not a valid base64url length");
    }
    byte[] out = new byte[(n / 4) * 3 + (rem == 0 ? 0 : rem - 1)];
    int o = 0;
    int i = 0;
    for (; i + 4 <= n; i += 4) {
      int v =
          (DECODE[s.charAt(i)] << 18)
              | (DECODE[s.charAt(i + 1)] << 12)
              | (DECODE[s.charAt(i + 2)] << 6)
              | DECODE[s.charAt(i + 3)];
      out[o++] = (byte) (v >> 16);
      out[o++] = (byte) (v >> 8);
      out[o++] = (byte) v;
    }
    if (rem == 2) {
      int a = DECODE[s.charAt(i)];
      int b = DECODE[s.charAt(i + 1)];
      if ((b & 0x0F) != 0) {
        throw nonCanonical();
      }
      out[o] = (byte) ((a << 2) | (b >> 4));
    } else if (rem == 3) {
      int a = DECODE[s.charAt(i)];
      int b = DECODE[s.charAt(i + 1)];
      int c = DECODE[s.charAt(i + 2)];
      if ((c & 0x03) != 0) {
        throw nonCanonical();
      }
      out[o++] = (byte) ((a << 2) | (b >> 4));
      out[o] = (byte) ((b << 4) | (c >> 2));
    }
    return out;
  }

  private static IllegalArgumentException nonCanonical() {
    return new IllegalArgumentException("non-zero trailing bits (not the canonical encoding)");
  }

  private static String describe(char c) {
    if (c >= 0x20 && c < 0x7F) {
      return "'" + c + "'";
    }
    return "U+" + Integer.toHexString(0x10000 | c).substring(1).toUpperCase(java.util.Locale.ROOT);
  }
}
