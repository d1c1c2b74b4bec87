package dev.agentauth.server.store;

import java.time.Instant;

/**
 * A receipt. {@code payloadJson} is the unsigned receipt object (every member but {@code
 * signature}) as canonical JSON, fixed at decision time; {@code signedJson} is the complete signed
 * receipt, null while pending: the payload with a {@code signature} member appended (see {@link
 * #isSignedFormOf}), which is what lets a store keep only that member. The other columns are copies
 * of payload members kept for filtering.
 *
 * <p>The constructor throws {@link IllegalArgumentException} if {@code signedJson} is not {@code
 * payloadJson} with a signature member appended.
 */
public record ReceiptRow(
    String workspaceId,
    String receiptId,
    String authorizationId,
    String userId,
    String resource,
    String sessionId,
    String scope,
    String event,
    String decision,
    Instant issuedAt,
    String payloadJson,
    String signedJson) {

  private static final String SIGNATURE_MEMBER = ",\"signature\":";

  public ReceiptRow {
    if (signedJson != null && !isSignedFormOf(payloadJson, signedJson)) {
      throw new IllegalArgumentException(
          "receipt "
              + receiptId
              + ": its signed text must be its payload with a signature member appended");
    }
  }

  /**
   * Whether {@code signed} is {@code payload} with a signature member appended: the payload without
   * its closing brace, then {@code ,"signature":{…}} and the closing brace.
   */
  public static boolean isSignedFormOf(String payload, String signed) {
    int cut = payload.length() - 1;
    return payload.endsWith("}")
        && signed.length() >= cut + SIGNATURE_MEMBER.length() + 3
        && signed.regionMatches(0, payload, 0, cut)
        && signed.startsWith(SIGNATURE_MEMBER + "{", cut)
        && signed.endsWith("}}");
  }

  /**
   * The value of the {@code signature} member a signed receipt text ends with, or null when the
   * text does not end with such a member. A signed text is the canonical payload with that member
   * appended, and canonical JSON escapes every quote inside a string, so the member's name, quoted
   * and followed by a colon, occurs only where it was appended. Whether the rest is a given payload
   * is for the caller to check ({@link #isSignedFormOf}).
   */
  public static String signatureMember(String signed) {
    int at = signed.lastIndexOf(SIGNATURE_MEMBER + "{");
    if (at < 0 || !signed.endsWith("}}")) {
      return null;
    }
    return signed.substring(at + SIGNATURE_MEMBER.length(), signed.length() - 1);
  }

  public boolean isSigned() {
    return signedJson != null;
  }

  /** This receipt with its signed form. */
  public ReceiptRow withSignedJson(String signed) {
    return new ReceiptRow(
        workspaceId,
        receiptId,
        authorizationId,
        userId,
        resource,
        sessionId,
        scope,
        event,
        decision,
        issuedAt,
        payloadJson,
        signed);
  }
}
