package dev.agentauth.server.webhook;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The {@code AgentAuth-Signature} header: {@code t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t +
 * "." + body)>}, the key being the secret's UTF-8 bytes.
 */
final class WebhookSignature {
  private WebhookSignature() {}

  static String header(byte[] secret, long unixSeconds, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      mac.update((unixSeconds + ".").getBytes(StandardCharsets.UTF_8));
      return "t=" + unixSeconds + ",v1=" + HexFormat.of().formatHex(mac.doFinal(body));
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("HmacSHA256 is unavailable", e);
    }
  }
}
