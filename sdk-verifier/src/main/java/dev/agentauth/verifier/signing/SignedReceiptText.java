package dev.agentauth.verifier.signing;

import java.util.Objects;

/**
 * The text of a signed receipt as an issuer stores and serves it, defined once: the receipt's
 * canonical payload (its members but {@code signature}, in canonical form) with its closing brace
 * replaced by {@code ,"signature":{"alg":"Ed25519","key_id":KEY_ID,"value":VALUE}}}. Because the
 * payload is canonical, its quotes inside strings are escaped, so <code>,"signature":{</code>
 * occurs in a signed text only where the member was appended; that is what lets a store keep the
 * payload and the member apart and check a signed text against its payload without parsing it.
 *
 * <p>Receipt format version 1.0: the text is the receipt {@link ReceiptSigner#sign} returns, as
 * JSON, with the {@code signature} member last rather than in canonical key order; a verifier
 * parses it and recomputes the canonical signing payload, so both orders verify alike.
 */
public final class SignedReceiptText {
  private SignedReceiptText() {}

  /** What joins the payload (without its closing brace) and the signature object. */
  public static final String MEMBER_SEPARATOR = ",\"signature\":";

  /**
   * The signed text of {@code canonicalPayload} signed by {@code keyId} with {@code value}
   * (unpadded base64url).
   */
  public static String of(String canonicalPayload, String keyId, String value) {
    return append(canonicalPayload, signatureObject(keyId, value));
  }

  /** The {@code signature} object: {@code {"alg":"Ed25519","key_id":...,"value":...}}. */
  public static String signatureObject(String keyId, String value) {
    Objects.requireNonNull(keyId, "keyId");
    Objects.requireNonNull(value, "value");
    return "{\"alg\":\"Ed25519\",\"key_id\":\"" + keyId + "\",\"value\":\"" + value + "\"}";
  }

  /** {@code canonicalPayload} with {@code signatureObject} appended as its last member. */
  public static String append(String canonicalPayload, String signatureObject) {
    StringBuilder sb = new StringBuilder(canonicalPayload.length() + signatureObject.length() + 14);
    sb.append(canonicalPayload, 0, canonicalPayload.length() - 1);
    return sb.append(MEMBER_SEPARATOR).append(signatureObject).append('}').toString();
  }

  /** Whether {@code signed} is {@code payload} with a signature object appended. */
  public static boolean isSignedFormOf(String payload, String signed) {
    int cut = payload.length() - 1;
    return payload.endsWith("}")
        && signed.length() >= cut + MEMBER_SEPARATOR.length() + 3
        && signed.regionMatches(0, payload, 0, cut)
        && signed.startsWith(MEMBER_SEPARATOR + "{", cut)
        && signed.endsWith("}}");
  }

  /**
   * The signature object a signed text ends with, or null when the text does not end with one.
   * Whether the rest is a given payload is for the caller to check ({@link #isSignedFormOf}).
   */
  public static String signatureObjectOf(String signed) {
    int at = signed.lastIndexOf(MEMBER_SEPARATOR + "{");
    if (at < 0 || !signed.endsWith("}}")) {
      return null;
    }
    return signed.substring(at + MEMBER_SEPARATOR.length(), signed.length() - 1);
  }

  /**
   * {@link #MEMBER_SEPARATOR} as an SQL string literal, for stores that assemble or check a signed
   * text in SQL.
   */
  public static String sqlSeparatorLiteral() {
    return "'" + MEMBER_SEPARATOR + "'";
  }
}
