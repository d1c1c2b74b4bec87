package dev.agentauth.client;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Locale;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Opaque {@code user_id} values. The service embeds {@code user_id} permanently in every signed
 * receipt, so it must never be a raw e-mail address, phone number or name; the spec recommends your
 * internal user id, or a keyed hash of the e-mail computed locally with a secret only you hold:
 *
 * <pre>{@code
 * byte[] secret = loadFromYourSecretStore();            // at least 16 random bytes, kept forever
 * String userId = UserIds.keyedHash(secret, "Ada@Example.com");
 * // the same id for "ada@example.com " later; nobody without the secret can reverse it
 * }</pre>
 *
 * <p>Without the secret the hash cannot be linked back to the address, not even by guessing
 * addresses (unlike a plain SHA-256). Keep the secret stable: a new secret yields new user ids.
 */
public final class UserIds {

  /** Shortest accepted secret, in bytes. */
  public static final int MIN_SECRET_BYTES = 16;

  private UserIds() {}

  /**
   * Returns HMAC-SHA256(secret, normalized e-mail) as unpadded base64url (43 characters). The
   * e-mail is normalized by trimming surrounding whitespace and lower-casing it ({@link
   * Locale#ROOT}), so differently written forms of one address map to one user id.
   *
   * @param secret the HMAC key, at least {@value #MIN_SECRET_BYTES} bytes
   * @param email the end-user's e-mail address
   * @throws IllegalArgumentException if the secret is shorter than {@value #MIN_SECRET_BYTES} bytes
   *     or the e-mail is blank
   * @throws NullPointerException if an argument is null
   */
  public static String keyedHash(byte[] secret, String email) {
    Objects.requireNonNull(secret, "secret");
    Objects.requireNonNull(email, "email");
    if (secret.length < MIN_SECRET_BYTES) {
      throw new IllegalArgumentException(
          "expected a secret of at least "
              + MIN_SECRET_BYTES
              + " bytes, found "
              + secret.length
              + " bytes");
    }
    String normalized = email.strip().toLowerCase(Locale.ROOT);
    if (normalized.isEmpty()) {
      throw new IllegalArgumentException("expected an e-mail address, found a blank string");
    }
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      byte[] digest = mac.doFinal(normalized.getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("HmacSHA256 is unavailable in this JVM", e);
    }
  }

  /**
   * Like {@link #keyedHash(byte[], String)} with the UTF-8 bytes of {@code secret}.
   *
   * @throws IllegalArgumentException if the secret is shorter than {@value #MIN_SECRET_BYTES} bytes
   *     in UTF-8 or the e-mail is blank
   */
  public static String keyedHash(String secret, String email) {
    Objects.requireNonNull(secret, "secret");
    return keyedHash(secret.getBytes(StandardCharsets.UTF_8), email);
  }
}
