package dev.agentauth.server.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Cutting a receipt's context out and putting it back gives the same text, byte for byte. */
class ReceiptContextsTest {

  private static final String BIG = "{\"b\":\"" + "x".repeat(300) + "\",\"q\":\"\\\"}\"}";

  private static String payload(String before, String context, String after) {
    return "{" + before + "\"context\":" + context + after + "}";
  }

  private static void roundTrips(String text) {
    ReceiptContexts.Cut cut = ReceiptContexts.cut(text);
    assertThat(ReceiptContexts.join(cut.text(), cut.at(), cut.context())).isEqualTo(text);
  }

  @Test
  void aLargeTopLevelContextIsCutAndPutBack() {
    String text =
        payload("\"a\":[1,{\"context\":\"no\"}],", BIG, ",\"z\":\"caf\u00e9 \uD83D\uDE00\"");
    ReceiptContexts.Cut cut = ReceiptContexts.cut(text);
    assertThat(cut.isCut()).isTrue();
    assertThat(cut.context()).isEqualTo(BIG);
    assertThat(cut.text()).doesNotContain("xxxx");
    assertThat(cut.sha256()).isEqualTo(ReceiptContexts.sha256(BIG)).hasSize(64);
    roundTrips(text);
  }

  @Test
  void theSignedFormIsCutAtTheSamePlace() {
    String payload = payload("\"a\":1,", BIG, "");
    String signed = payload.substring(0, payload.length() - 1) + ",\"signature\":{\"v\":\"s\"}}";
    ReceiptContexts.Cut p = ReceiptContexts.cut(payload);
    ReceiptContexts.Cut s = ReceiptContexts.cut(signed);
    assertThat(s.at()).isEqualTo(p.at());
    assertThat(s.sha256()).isEqualTo(p.sha256());
    assertThat(p.cutAlike(signed)).isEqualTo(s.text());
    roundTrips(signed);
  }

  @Test
  void smallMissingOrNestedContextsStayWhole() {
    String small = payload("", "{\"a\":1}", "");
    String nestedOnly = "{\"a\":{\"context\":" + BIG + "},\"b\":\"\\\"context\\\":" + "\"}";
    for (String text : new String[] {small, nestedOnly, "{}", "[]", "", "{\"context\":"}) {
      ReceiptContexts.Cut cut = ReceiptContexts.cut(text);
      assertThat(cut.isCut()).as(text).isFalse();
      assertThat(cut.text()).isSameAs(text);
      roundTrips(text);
    }
  }

  @Test
  void aContextThatIsNotAnObjectIsCutToo() {
    String text = payload("", "\"" + "s".repeat(400) + "\"", ",\"d\":2");
    ReceiptContexts.Cut cut = ReceiptContexts.cut(text);
    assertThat(cut.isCut()).isTrue();
    assertThat(cut.text()).isEqualTo("{\"context\":,\"d\":2}");
    roundTrips(text);
  }
}
