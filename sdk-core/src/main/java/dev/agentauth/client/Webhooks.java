package dev.agentauth.client;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Checks that a webhook request came from the service, for receivers written in Java.
 *
 * <p>Every request carries {@code AgentAuth-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>} over
 * {@code t + "." + body}, keyed with the webhook's secret ({@code whsec_...}, its UTF-8 bytes).
 * Verify the body exactly as received, before parsing it:
 *
 * <pre>{@code
 * byte[] body = request.body();                         // raw bytes
 * String header = request.header("AgentAuth-Signature");
 * try {
 *   Webhooks.verify(body, header, secret, Duration.ofMinutes(5));
 * } catch (WebhookVerificationException e) {
 *   return 400;                                         // not from the service, or replayed late
 * }
 * // parse the JSON; drop an event whose "id" was seen before (delivery is at least once)
 * }</pre>
 *
 * <p>The checks run in order and the first that fails names itself: the header's form, the
 * timestamp within {@code tolerance} of now (either side), then the signature, compared in constant
 * time. A header may carry several {@code v1=} values (during a secret change); one match is
 * enough. Thread-safe; no state.
 */
public final class Webhooks {
  /** The request header holding the signature. */
  public static final String SIGNATURE_HEADER = "AgentAuth-Signature";

  private Webhooks() {}

  /**
   * Verifies a webhook request against the system clock.
   *
   * @param body the request body exactly as received
   * @param signatureHeader the {@code AgentAuth-Signature} header's value
   * @param secret the webhook's secret, as {@code POST /v1/webhooks} showed it
   * @param tolerance how far the signature's timestamp may be from now, either side (5 minutes
   *     suits most receivers)
   * @throws WebhookVerificationException if the header is missing or malformed, the timestamp is
   *     outside the window, or no signature matches
   * @throws IllegalArgumentException if {@code secret} is empty or {@code tolerance} negative
   */
  public static void verify(
      byte[] body, String signatureHeader, String secret, Duration tolerance) {
    verify(body, signatureHeader, secret, tolerance, Clock.systemUTC());
  }

  /** {@link #verify(byte[], String, String, Duration)} with the body as text (UTF-8). */
  public static void verify(
      String body, String signatureHeader, String secret, Duration tolerance) {
    Objects.requireNonNull(body, "body");
    verify(body.getBytes(StandardCharsets.UTF_8), signatureHeader, secret, tolerance);
  }

  /** {@link #verify(byte[], String, String, Duration)} against {@code clock}. */
  public static void verify(
      byte[] body, String signatureHeader, String secret, Duration tolerance, Clock clock) {
    Objects.requireNonNull(body, "body");
    Objects.requireNonNull(secret, "secret");
    Objects.requireNonNull(tolerance, "tolerance");
    Objects.requireNonNull(clock, "clock");
    if (secret.isEmpty()) {
      throw new IllegalArgumentException("secret must not be empty");
    }
    if (tolerance.isNegative()) {
      throw new IllegalArgumentException("tolerance must not be negative, got " + tolerance);
    }
    if (signatureHeader == null || signatureHeader.isBlank()) {
      throw new WebhookVerificationException(
          "header: no " + SIGNATURE_HEADER + " header; the request is not from the service");
    }
    Long t = null;
    List<byte[]> signatures = new ArrayList<>();
    for (String part : signatureHeader.split(",")) {
      String p = part.trim();
      int eq = p.indexOf('=');
      if (eq <= 0) {
        throw malformed("\"" + clip(p) + "\" is not key=value");
      }
      String k = p.substring(0, eq);
      String v = p.substring(eq + 1);
      if (k.equals("t")) {
        if (t != null || !v.matches("[0-9]{1,12}")) {
          throw malformed("t must appear once, as unix seconds, got \"" + clip(v) + "\"");
        }
        t = Long.parseLong(v);
      } else if (k.equals("v1")) {
        if (!v.matches("[0-9a-fA-F]{64}")) {
          throw malformed("v1 must be 64 hex digits, got \"" + clip(v) + "\"");
        }
        signatures.add(HexFormat.of().parseHex(v));
      }
    }
    if (t == null) {
      throw malformed("no t= timestamp");
    }
    if (signatures.isEmpty()) {
      throw malformed("no v1= signature");
    }
    long now = clock.millis() / 1000;
    if (Math.abs(now - t) > tolerance.toSeconds()) {
      throw new WebhookVerificationException(
          "timestamp: t="
              + t
              + " is "
              + Math.abs(now - t)
              + " s from now, outside the tolerance of "
              + tolerance.toSeconds()
              + " s (a replay, or a clock that is off)");
    }
    byte[] expected = hmac(secret.getBytes(StandardCharsets.UTF_8), t, body);
    boolean match = false;
    for (byte[] s : signatures) {
      match |= MessageDigest.isEqual(expected, s);
    }
    if (!match) {
      throw new WebhookVerificationException(
          "signature: no v1 signature matches the body under this secret (a changed body, another"
              + " webhook's secret, or not from the service)");
    }
  }

  /** {@code t=<t>,v1=<hex>} for {@code body} under {@code secret}: what the service sends. */
  public static String signatureHeader(byte[] body, String secret, long unixSeconds) {
    Objects.requireNonNull(body, "body");
    Objects.requireNonNull(secret, "secret");
    return "t="
        + unixSeconds
        + ",v1="
        + HexFormat.of()
            .formatHex(hmac(secret.getBytes(StandardCharsets.UTF_8), unixSeconds, body));
  }

  private static byte[] hmac(byte[] key, long t, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      mac.update((t + ".").getBytes(StandardCharsets.UTF_8));
      return mac.doFinal(body);
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("HmacSHA256 is unavailable", e);
    }
  }

  private static WebhookVerificationException malformed(String why) {
    return new WebhookVerificationException("header: malformed " + SIGNATURE_HEADER + ": " + why);
  }

  private static String clip(String s) {
    return s.length() > 40 ? s.substring(0, 40) + "..." : s;
  }
}
