package dev.agentauth.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.verifier.signing.SignedReceiptText;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ReceiptRowTest {
  private static final String PAYLOAD = "{\"decision\":\"allow\",\"receipt_id\":\"r1\"}";
  private static final String SIGNED =
      "{\"decision\":\"allow\",\"receipt_id\":\"r1\",\"signature\":{\"alg\":\"Ed25519\","
          + "\"key_id\":\"ws/k\",\"value\":\"AAAA\"}}";

  private static ReceiptRow row(String signedJson) {
    return new ReceiptRow(
        "ws",
        "r1",
        null,
        null,
        null,
        null,
        null,
        null,
        "allow",
        Instant.EPOCH,
        PAYLOAD,
        signedJson);
  }

  @Test
  void aSignedTextIsThePayloadWithASignatureMemberAppended() {
    assertThat(SignedReceiptText.isSignedFormOf(PAYLOAD, SIGNED)).isTrue();
    assertThat(row(SIGNED).isSigned()).isTrue();
    assertThat(row(null).withSignedJson(SIGNED)).isEqualTo(row(SIGNED));
  }

  @Test
  void anyOtherSignedTextIsRejected() {
    for (String text :
        new String[] {
          PAYLOAD, // no member
          SIGNED.substring(0, SIGNED.length() - 1), // not closed
          SIGNED.replace("\"allow\"", "\"deny\""), // another payload
          SIGNED.replace(",\"signature\":{", ",\"signatures\":{"), // another member
          "{\"signature\":{}}"
        }) {
      assertThat(SignedReceiptText.isSignedFormOf(PAYLOAD, text)).as(text).isFalse();
      assertThatThrownBy(() -> row(text))
          .as(text)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("receipt r1");
    }
  }
}
