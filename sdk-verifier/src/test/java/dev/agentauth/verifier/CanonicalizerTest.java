package dev.agentauth.verifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CanonicalizerTest {

  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private static String canon(String json) {
    return Canonicalizer.canonicalString(Fixtures.parse(json));
  }

  @Test
  void keysAreSortedByUtf16CodeUnitsNotCodePoints() {
    // U+FB01 (one code unit 0xFB01) vs U+1F600 (code units 0xD83D 0xDE00): code-point order puts
    // U+FB01 first, UTF-16 order puts the emoji first.
    ObjectNode node = F.objectNode().put("\uFB01", 1).put("\uD83D\uDE00", 2).put("a", 3);

    assertThat(Canonicalizer.canonicalString(node))
        .isEqualTo("{\"a\":3,\"\uD83D\uDE00\":2,\"\uFB01\":1}");
  }

  @Test
  void keysSortAcrossBmpAndSupplementaryPlanesLikeTheVectorFile() {
    ObjectNode node =
        F.objectNode().put("plain", "x").put("\uFF61_marker", 2).put("\uD83D\uDE00_reaction", 1);

    assertThat(Canonicalizer.canonicalString(node))
        .isEqualTo("{\"plain\":\"x\",\"\uD83D\uDE00_reaction\":1,\"\uFF61_marker\":2}");
  }

  @Test
  void keysSortByCodeUnitsIncludingUpperBeforeLowerAndPrefixFirst() {
    assertThat(canon("{\"b\":1,\"a\":2,\"B\":3,\"ab\":4,\"\":5}"))
        .isEqualTo("{\"\":5,\"B\":3,\"a\":2,\"ab\":4,\"b\":1}");
  }

  @Test
  void everyControlCharacterIsEscapedAsLowercaseUnicodeEscape() {
    StringBuilder raw = new StringBuilder();
    StringBuilder expected = new StringBuilder("\"");
    for (char c = 0; c < 0x20; c++) {
      raw.append(c);
      expected.append(String.format("\\u%04x", (int) c));
    }
    expected.append('"');

    assertThat(Canonicalizer.canonicalString(F.textNode(raw.toString())))
        .isEqualTo(expected.toString());
    assertThat(Canonicalizer.canonicalString(F.textNode("a\nb"))).isEqualTo("\"a\\u000ab\"");
    assertThat(Canonicalizer.canonicalString(F.textNode("\u001f"))).isEqualTo("\"\\u001f\"");
  }

  @Test
  void deleteCharacterAndOtherAsciiAreWrittenRaw() {
    byte[] bytes = Canonicalizer.canonicalize(F.textNode("\u007f/<>&'"));

    assertThat(bytes).containsExactly('"', 0x7F, '/', '<', '>', '&', '\'', '"');
  }

  @Test
  void quotesAndBackslashesAreTheOnlyEscapedPrintables() {
    assertThat(Canonicalizer.canonicalString(F.textNode("say \"hi\" \\ bye")))
        .isEqualTo("\"say \\\"hi\\\" \\\\ bye\"");
  }

  @Test
  void nonAsciiIsWrittenAsRawUtf8() {
    String s = "Zürich → København 受信箱 \uD83D\uDE00 \u0800 \uFFFF \u0080";

    byte[] bytes = Canonicalizer.canonicalize(F.textNode(s));

    assertThat(bytes).isEqualTo(("\"" + s + "\"").getBytes(StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @ValueSource(strings = {"\uD800", "\uDC00", "a\uD83D", "\uDE00\uD83D", "\uD83Dx"})
  void loneSurrogatesAreRejected(String s) {
    ObjectNode node = F.objectNode();
    node.putObject("ctx").put("note", s);

    assertThatThrownBy(() -> Canonicalizer.canonicalize(node))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessageContaining("$.ctx.note")
        .hasMessageContaining("lone surrogate");
  }

  @Test
  void loneSurrogateInAKeyIsRejected() {
    ObjectNode node = F.objectNode().put("\uD800", 1);

    assertThatThrownBy(() -> Canonicalizer.canonicalize(node))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessageContaining("lone surrogate");
  }

  @Test
  void nestedObjectsAreSortedRecursivelyAndArraysKeepTheirOrder() {
    assertThat(
            canon(
                "{ \"z\": [3, 1, {\"b\": true, \"a\": null}], \"a\": {\"y\": false, \"x\": [\"b\", \"a\"]} }"))
        .isEqualTo("{\"a\":{\"x\":[\"b\",\"a\"],\"y\":false},\"z\":[3,1,{\"a\":null,\"b\":true}]}");
  }

  @Test
  void emptyObjectsAndArraysHaveNoWhitespace() {
    assertThat(canon(" { \"o\" : { } , \"a\" : [ ] } ")).isEqualTo("{\"a\":[],\"o\":{}}");
    assertThat(canon("{}")).isEqualTo("{}");
    assertThat(canon("[]")).isEqualTo("[]");
  }

  @Test
  void literalsAreWrittenPlain() {
    assertThat(canon("[true, false, null]")).isEqualTo("[true,false,null]");
  }

  @Test
  void manyKeysAreSortedToo() {
    ObjectNode node = F.objectNode();
    List<String> keys = new ArrayList<>();
    Random random = new Random(7);
    for (int i = 0; i < 200; i++) {
      String k = "k" + random.nextInt(1_000_000);
      keys.add(k);
      node.put(k, i);
    }
    keys.sort(null);

    String out = Canonicalizer.canonicalString(node);

    assertThat(out).isEqualTo(reference(node));
    assertThat(out.indexOf(keys.get(0))).isLessThan(out.indexOf(keys.get(199)));
  }

  @Test
  void integersAtTheSafeBoundsAreWrittenAsPlainDigits() {
    assertThat(canon("[9007199254740991, -9007199254740991, 0, -0, 7, -1, 1000000]"))
        .isEqualTo("[9007199254740991,-9007199254740991,0,0,7,-1,1000000]");
  }

  @Test
  void smallBigIntegerNodesAreIntegersToo() {
    assertThat(Canonicalizer.canonicalString(F.numberNode(BigInteger.valueOf(-42))))
        .isEqualTo("-42");
  }

  @ParameterizedTest
  @ValueSource(strings = {"1.0", "2.5", "1e3", "1E+2", "-0.0", "0.1", "1.5e-7"})
  void fractionsAndExponentsAreRejected(String number) {
    assertThatThrownBy(() -> canon("{\"a\":{\"b\":[0, " + number + "]}}"))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessageStartingWith("$.a.b[1]: ")
        .hasMessageContaining("not an integer")
        .extracting(e -> ((CanonicalizationException) e).path())
        .isEqualTo("$.a.b[1]");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "9007199254740992",
        "-9007199254740992",
        "9223372036854775807",
        "18446744073709551616",
        "-123456789012345678901234567890"
      })
  void integersBeyondTheSafeRangeAreRejected(String number) {
    assertThatThrownBy(() -> canon("{\"amount\": " + number + "}"))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessageContaining("$.amount")
        .hasMessageContaining("safe range");
  }

  @Test
  void floatNodesAreRejectedEvenWhenIntegral() {
    assertThatThrownBy(() -> Canonicalizer.canonicalize(F.numberNode(3.0)))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessageStartingWith("$: ");
    assertThatThrownBy(
            () -> Canonicalizer.canonicalize(F.numberNode(new java.math.BigDecimal("3"))))
        .isInstanceOf(CanonicalizationException.class);
  }

  @Test
  void nonJsonNodesAreRejected() {
    assertThatThrownBy(
            () -> Canonicalizer.canonicalize(F.objectNode().set("b", F.binaryNode(new byte[] {1}))))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessageContaining("$.b");
    assertThatThrownBy(() -> Canonicalizer.canonicalize(F.missingNode()))
        .isInstanceOf(CanonicalizationException.class);
  }

  @Test
  void pathsQuoteKeysThatAreNotIdentifiers() {
    assertThatThrownBy(() -> canon("{\"a b\": {\"x\\\"y\": [1.5]}}"))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessageStartingWith("$[\"a b\"][\"x\\\"y\"][0]: ");
  }

  @Test
  void nestingDeeperThanTheLimitIsRejectedWithoutStackOverflow() {
    ArrayNode root = F.arrayNode();
    ArrayNode current = root;
    for (int i = 0; i < 5_000; i++) {
      current = current.addArray();
    }
    assertThatThrownBy(() -> Canonicalizer.canonicalize(root))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessageContaining("nesting deeper than");
  }

  @Test
  void signingPayloadOmitsOnlyTheTopLevelSignatureMember() {
    ObjectNode receipt =
        (ObjectNode)
            Fixtures.parse(
                "{\"version\":\"1.0\",\"signature\":{\"alg\":\"Ed25519\"},"
                    + "\"context\":{\"signature\":\"kept\"}}");

    assertThat(new String(Canonicalizer.signingPayload(receipt), StandardCharsets.UTF_8))
        .isEqualTo("{\"context\":{\"signature\":\"kept\"},\"version\":\"1.0\"}");
    assertThat(receipt.has("signature")).as("the tree is not modified").isTrue();
  }

  @Test
  void signingPayloadOfAnUnsignedReceiptIsItsCanonicalForm() {
    ObjectNode receipt = Fixtures.scopeReceipt();

    assertThat(Canonicalizer.signingPayload(receipt))
        .isEqualTo(Canonicalizer.canonicalize(receipt));
  }

  @Test
  void canonicalStringIsTheUtf8DecodingOfTheCanonicalBytes() {
    JsonNode node = Fixtures.parse("{\"k\":\"v\u00e9\uD83D\uDE00\",\"n\":[1,-2]}");

    assertThat(Canonicalizer.canonicalString(node))
        .isEqualTo(new String(Canonicalizer.canonicalize(node), StandardCharsets.UTF_8));
  }

  @Test
  void canonicalizingTheCanonicalFormAgainChangesNothing() {
    JsonNode node = Fixtures.vectors().get("should_verify");
    String once = Canonicalizer.canonicalString(node);

    assertThat(Canonicalizer.canonicalString(Fixtures.parse(once))).isEqualTo(once);
  }

  @Test
  void aHugeValueIsHandledAndTheNextCallStillWorks() {
    String big = "é".repeat(200_000);

    assertThat(Canonicalizer.canonicalize(F.textNode(big))).hasSize(400_002);
    assertThat(canon("{\"b\":1,\"a\":2}")).isEqualTo("{\"a\":2,\"b\":1}");
  }

  @Test
  void matchesAStraightforwardReferenceImplementationOnRandomTrees() {
    Random random = new Random(20261122);
    for (int i = 0; i < 2_000; i++) {
      JsonNode node = randomValue(random, 0);

      assertThat(Canonicalizer.canonicalString(node)).isEqualTo(reference(node));
    }
  }

  // A deliberately naive implementation of the same rules, to cross-check the fast one.
  private static String reference(JsonNode node) {
    if (node.isObject()) {
      Map<String, JsonNode> sorted = new TreeMap<>();
      node.properties().forEach(e -> sorted.put(e.getKey(), e.getValue()));
      StringBuilder sb = new StringBuilder("{");
      sorted.forEach(
          (k, v) -> {
            if (sb.length() > 1) {
              sb.append(',');
            }
            sb.append(referenceString(k)).append(':').append(reference(v));
          });
      return sb.append('}').toString();
    }
    if (node.isArray()) {
      List<String> parts = new ArrayList<>();
      node.forEach(v -> parts.add(reference(v)));
      return "[" + String.join(",", parts) + "]";
    }
    if (node.isTextual()) {
      return referenceString(node.textValue());
    }
    return node.toString();
  }

  private static String referenceString(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        sb.append('\\').append(c);
      } else if (c < 0x20) {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    return sb.append('"').toString();
  }

  private static JsonNode randomValue(Random r, int depth) {
    int kind = depth > 3 ? r.nextInt(4) : r.nextInt(6);
    switch (kind) {
      case 0:
        return F.textNode(randomString(r));
      case 1:
        return F.numberNode((r.nextLong() % Canonicalizer.MAX_SAFE_INTEGER));
      case 2:
        return F.booleanNode(r.nextBoolean());
      case 3:
        return F.nullNode();
      case 4:
        ArrayNode a = F.arrayNode();
        for (int i = r.nextInt(4); i > 0; i--) {
          a.add(randomValue(r, depth + 1));
        }
        return a;
      default:
        ObjectNode o = F.objectNode();
        for (int i = r.nextInt(30); i > 0; i--) {
          o.set(randomString(r), randomValue(r, depth + 1));
        }
        return o;
    }
  }

  private static String randomString(Random r) {
    StringBuilder sb = new StringBuilder();
    for (int i = r.nextInt(8); i > 0; i--) {
      switch (r.nextInt(6)) {
        case 0 -> sb.append((char) r.nextInt(0x20));
        case 1 -> sb.append("\"\\".charAt(r.nextInt(2)));
        case 2 -> sb.appendCodePoint(0x10000 + r.nextInt(0xF0000));
        case 3 -> sb.append((char) (0x80 + r.nextInt(0xD800 - 0x80)));
        case 4 -> sb.append((char) (0xE000 + r.nextInt(0x2000)));
        default -> sb.append((char) ('a' + r.nextInt(26)));
      }
    }
    return sb.toString();
  }
}
