package dev.agentauth.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * {@link Webhooks#verify}: the header's form, the timestamp window and the signature, each failing
 * with a message naming its step.
 */
class WebhooksTest {
  private static final String SECRET = "whsec_" + "k".repeat(43);
  private static final byte[] BODY =
      "{\"id\":\"evt_1\",\"type\":\"escalation.created\"}".getBytes(StandardCharsets.UTF_8);
  private static final long T = 1_795_000_000L;
  private static final Clock AT_T = Clock.fixed(Instant.ofEpochSecond(T), ZoneOffset.UTC);
  private static final Duration FIVE_MINUTES = Duration.ofMinutes(5);

  private static void verify(byte[] body, String header, String secret, Clock clock) {
    Webhooks.verify(body, header, secret, FIVE_MINUTES, clock);
  }

  @Test
  void aSignatureOverTheTimestampAndBodyVerifies() {
    String header = Webhooks.signatureHeader(BODY, SECRET, T);
    assertThat(header).matches("t=" + T + ",v1=[0-9a-f]{64}");
    verify(BODY, header, SECRET, AT_T);
    // Known answer: HMAC-SHA256(key, "1795000000." + body), computed independently.
    assertThat(header)
        .isEqualTo(
            "t=1795000000,v1="
                + hex(
                    javaxHmac(
                        SECRET.getBytes(StandardCharsets.UTF_8),
                        ("1795000000." + new String(BODY, StandardCharsets.UTF_8))
                            .getBytes(StandardCharsets.UTF_8))));
  }

  @Test
  void oneMatchingSignatureAmongSeveralIsEnough() {
    String good = Webhooks.signatureHeader(BODY, SECRET, T);
    String other = Webhooks.signatureHeader(BODY, "whsec_old", T).split(",")[1];
    verify(BODY, good + "," + other, SECRET, AT_T);
    verify(BODY, "t=" + T + "," + other + "," + good.split(",")[1], SECRET, AT_T);
  }

  @Test
  void aChangedBodyOrAnotherSecretFailsAtTheSignatureStep() {
    String header = Webhooks.signatureHeader(BODY, SECRET, T);
    byte[] changed = BODY.clone();
    changed[8] ^= 1;
    assertThatThrownBy(() -> verify(changed, header, SECRET, AT_T))
        .isInstanceOf(WebhookVerificationException.class)
        .hasMessageStartingWith("signature:");
    assertThatThrownBy(() -> verify(BODY, header, SECRET + "x", AT_T))
        .isInstanceOf(WebhookVerificationException.class)
        .hasMessageStartingWith("signature:");
    // The timestamp is signed too: moving it breaks the signature.
    String moved = header.replace("t=" + T, "t=" + (T + 1));
    assertThatThrownBy(() -> verify(BODY, moved, SECRET, AT_T))
        .hasMessageStartingWith("signature:");
  }

  @Test
  void aTimestampOutsideTheToleranceFailsAtTheTimestampStep() {
    String header = Webhooks.signatureHeader(BODY, SECRET, T);
    verify(BODY, header, SECRET, Clock.offset(AT_T, Duration.ofMinutes(5)));
    verify(BODY, header, SECRET, Clock.offset(AT_T, Duration.ofMinutes(-5)));
    assertThatThrownBy(
            () -> verify(BODY, header, SECRET, Clock.offset(AT_T, Duration.ofSeconds(301))))
        .isInstanceOf(WebhookVerificationException.class)
        .hasMessageStartingWith("timestamp:")
        .hasMessageContaining("301 s");
    assertThatThrownBy(
            () -> verify(BODY, header, SECRET, Clock.offset(AT_T, Duration.ofSeconds(-301))))
        .hasMessageStartingWith("timestamp:");
  }

  @Test
  void aMissingOrMalformedHeaderFailsAtTheHeaderStep() {
    String sig = Webhooks.signatureHeader(BODY, SECRET, T).split(",")[1];
    for (String bad :
        new String[] {
          "", "t=" + T, sig, "t=abc," + sig, "t=" + T + ",v1=zz", "t=1,t=2," + sig, "garbage"
        }) {
      assertThatThrownBy(() -> verify(BODY, bad, SECRET, AT_T))
          .as(bad)
          .isInstanceOf(WebhookVerificationException.class)
          .hasMessageStartingWith("header:");
    }
    assertThatThrownBy(() -> verify(BODY, null, SECRET, AT_T)).hasMessageStartingWith("header:");
  }

  @Test
  void misuseIsAnIllegalArgumentNotAVerificationFailure() {
    String header = Webhooks.signatureHeader(BODY, SECRET, T);
    assertThatThrownBy(() -> verify(BODY, header, "", AT_T))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Webhooks.verify(BODY, header, SECRET, Duration.ofSeconds(-1), AT_T))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static byte[] javaxHmac(byte[] key, byte[] data) {
    try {
      javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
      mac.init(new javax.crypto.spec.SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(data);
    } catch (java.security.GeneralSecurityException e) {
      throw new AssertionError(e);
    }
  }

  private static String hex(byte[] b) {
    return java.util.HexFormat.of().formatHex(b);
  }
}
