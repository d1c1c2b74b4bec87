package dev.agentauth.verifier;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Objects;

/**
 * Fingerprints of Ed25519 public keys, the values key pinning compares: {@code SHA256:} followed by
 * the SHA-256 digest of the raw 32-byte public key (the bytes {@code public_key} decodes to in the
 * keys document), in unpadded base64url, 50 characters in all:
 *
 * <pre>{@code
 * String pin = KeyFingerprint.of(publicKeyBytes);   // "SHA256:q1vE...Wk"
 * ReceiptVerifier verifier = ReceiptVerifier.builder()
 *     .keysJson(keysJson)
 *     .trustedKeyFingerprints(Set.of(pin))
 *     .build();
 * }</pre>
 *
 * <p>{@code agentauth-verify keys fingerprint keys.json} prints the fingerprint of every key of a
 * keys document, and {@link ReceiptVerifier#keyFingerprints()} returns them. Stateless and
 * thread-safe.
 */
public final class KeyFingerprint {

  /** The prefix naming the digest: {@value}. */
  public static final String PREFIX = "SHA256:";

  private static final int PUBLIC_KEY_BYTES = 32;
  private static final int DIGEST_BYTES = 32;

  private KeyFingerprint() {}

  /**
   * Returns the fingerprint of a raw Ed25519 public key.
   *
   * @param publicKey the 32 bytes of the public key
   * @return {@code SHA256:} and the unpadded base64url SHA-256 digest of {@code publicKey}
   * @throws IllegalArgumentException if {@code publicKey} is not 32 bytes long
   * @throws NullPointerException if {@code publicKey} is null
   */
  public static String of(byte[] publicKey) {
    Objects.requireNonNull(publicKey, "publicKey");
    if (publicKey.length != PUBLIC_KEY_BYTES) {
      throw new IllegalArgumentException(
          "an Ed25519 public key is 32 bytes; got " + publicKey.length + " bytes");
    }
    MessageDigest sha256;
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      // Every Java platform must provide SHA-256 (MessageDigest's documentation).
      throw new IllegalStateException("SHA-256 is not available", e);
    }
    return PREFIX
        + Base64.getUrlEncoder().withoutPadding().encodeToString(sha256.digest(publicKey));
  }

  /**
   * Checks that {@code fingerprint} is a well-formed fingerprint and returns it: {@code SHA256:}
   * (upper case) followed by exactly 43 characters of unpadded base64url ({@code A-Z a-z 0-9 - _})
   * that decode to 32 bytes.
   *
   * @param fingerprint the text to check, such as a command-line argument
   * @return {@code fingerprint}, unchanged
   * @throws IllegalArgumentException naming the defect (missing prefix, padding, a character
   *     outside the base64url alphabet such as {@code +} or {@code /}, wrong length)
   * @throws NullPointerException if {@code fingerprint} is null
   */
  public static String requireValid(String fingerprint) {
    Objects.requireNonNull(fingerprint, "fingerprint");
    if (!fingerprint.startsWith(PREFIX)) {
      throw new IllegalArgumentException(
          "key fingerprint "
              + Json.show(fingerprint)
              + " must start with \""
              + PREFIX
              + "\" followed by the unpadded base64url SHA-256 of the raw public key");
    }
    String digest = fingerprint.substring(PREFIX.length());
    byte[] bytes;
    try {
      bytes = Base64Url.decode(digest);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "key fingerprint "
              + Json.show(fingerprint)
              + ": the digest after \""
              + PREFIX
              + "\" must be unpadded base64url: "
              + e.getMessage(),
          e);
    }
    if (bytes.length != DIGEST_BYTES) {
      throw new IllegalArgumentException(
          "key fingerprint "
              + Json.show(fingerprint)
              + ": the digest after \""
              + PREFIX
              + "\" decodes to "
              + bytes.length
              + " bytes; a SHA-256 digest is 32 (43 base64url characters)");
    }
    return fingerprint;
  }
}
