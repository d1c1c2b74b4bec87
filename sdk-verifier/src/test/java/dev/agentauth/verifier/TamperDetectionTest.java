package dev.agentauth.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Any change to a valid vector receipt breaks it: every top-level member, every nested member of
 * {@code context} (and {@code policy_eval}), and every bit of the signature.
 */
class TamperDetectionTest {

  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final ReceiptVerifier VERIFIER = Fixtures.vectorVerifier();

  static Stream<Arguments> validVectors() {
    List<Arguments> out = new ArrayList<>();
    for (JsonNode v : Fixtures.vectors().get("should_verify")) {
      out.add(Arguments.of(v.get("name").asText(), v.get("receipt")));
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("validVectors")
  void changingAnySingleMemberAtAnyDepthBreaksTheReceipt(String name, ObjectNode receipt) {
    assertThat(VERIFIER.verify(receipt).valid()).as("untampered").isTrue();
    List<String> accepted = new ArrayList<>();
    int tried = 0;

    for (Map.Entry<String, JsonNode> member : receipt.properties()) {
      if (member.getKey().equals("signature")) {
        continue;
      }
      List<Tamper> tampers = new ArrayList<>();
      collect(member.getValue(), "$." + member.getKey(), v -> v, (top, r) -> r, tampers);
      for (Tamper t : tampers) {
        ObjectNode copy = receipt.deepCopy();
        copy.set(member.getKey(), t.apply(copy.get(member.getKey())));
        tried++;
        if (VERIFIER.verify(copy).valid() || VERIFIER.verify(Fixtures.json(copy)).valid()) {
          accepted.add(t.description);
        }
      }
      ObjectNode removed = receipt.deepCopy();
      removed.remove(member.getKey());
      tried++;
      if (VERIFIER.verify(removed).valid()) {
        accepted.add("removed $." + member.getKey());
      }
    }

    assertThat(accepted).as(name).isEmpty();
    assertThat(tried).isGreaterThan(20);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("validVectors")
  void flippingAnyBitOfTheSignatureBreaksTheReceipt(String name, ObjectNode receipt) {
    byte[] signature = Base64Url.decode(receipt.get("signature").get("value").asText());
    List<String> accepted = new ArrayList<>();

    for (int bit = 0; bit < 512; bit++) {
      byte[] flipped = signature.clone();
      flipped[bit / 8] ^= (byte) (1 << (bit % 8));
      ObjectNode copy = receipt.deepCopy();
      ((ObjectNode) copy.get("signature"))
          .put("value", Base64.getUrlEncoder().withoutPadding().encodeToString(flipped));

      VerificationResult result = VERIFIER.verify(copy);

      if (result.valid() || result.failedStep() != VerificationStep.SIGNATURE) {
        accepted.add("bit " + bit + ": " + result);
      }
    }

    assertThat(accepted).as(name).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("validVectors")
  void changingAnySignatureMemberBreaksTheReceipt(String name, ObjectNode receipt) {
    for (String member : new String[] {"alg", "key_id", "value"}) {
      ObjectNode copy = receipt.deepCopy();
      ObjectNode signature = (ObjectNode) copy.get("signature");
      String value = signature.get(member).asText();
      signature.put(member, member.equals("value") ? "A" + value.substring(1) : value + "x");

      assertThat(VERIFIER.verify(copy).valid()).as(name + " signature." + member).isFalse();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("validVectors")
  void theSameInstantWrittenDifferentlyBreaksTheReceipt(String name, ObjectNode receipt) {
    String issuedAt = receipt.get("issued_at").asText();
    Instant instant = Rfc3339.parse(issuedAt);
    String[] rewrites = {
      instant.toString(), issuedAt.replace("Z", "+00:00"), issuedAt.replace("T", "t"),
    };
    for (String rewrite : rewrites) {
      if (rewrite.equals(issuedAt)) {
        continue;
      }
      ObjectNode copy = receipt.deepCopy();
      copy.put("issued_at", rewrite);

      VerificationResult result = VERIFIER.verify(copy);

      assertThat(result.failedStep())
          .as(name + " " + rewrite)
          .isEqualTo(VerificationStep.SIGNATURE);
    }
  }

  /** A replacement for the value at some path inside one top-level member. */
  private record Tamper(String description, Function<JsonNode, JsonNode> apply) {
    JsonNode apply(JsonNode original) {
      return apply.apply(original.deepCopy());
    }
  }

  /**
   * Collects tampers for {@code value} and, recursively, for everything inside it. {@code locate}
   * finds, in a copy of the top-level member, the node at {@code path}; {@code put} stores a
   * replacement for it there (through its parent, never by identity: Jackson shares small number
   * nodes) and returns the new top-level value.
   */
  private static void collect(
      JsonNode value,
      String path,
      Function<JsonNode, JsonNode> locate,
      BiFunction<JsonNode, JsonNode, JsonNode> put,
      List<Tamper> out) {
    for (JsonNode replacement : replacements(value)) {
      out.add(new Tamper(path + " -> " + replacement, top -> put.apply(top, replacement)));
    }
    if (value.isObject()) {
      for (Map.Entry<String, JsonNode> e : value.properties()) {
        String key = e.getKey();
        collect(
            e.getValue(),
            path + "." + key,
            locate.andThen(n -> n.get(key)),
            (top, r) -> {
              ((ObjectNode) locate.apply(top)).set(key, r);
              return top;
            },
            out);
        out.add(
            new Tamper(
                "removed " + path + "." + key,
                top -> {
                  ((ObjectNode) locate.apply(top)).remove(key);
                  return top;
                }));
      }
      out.add(
          new Tamper(
              "added member to " + path,
              top -> {
                ((ObjectNode) locate.apply(top)).put("tampered", true);
                return top;
              }));
    } else if (value.isArray()) {
      for (int i = 0; i < value.size(); i++) {
        int index = i;
        collect(
            value.get(i),
            path + "[" + i + "]",
            locate.andThen(n -> n.get(index)),
            (top, r) -> {
              ((ArrayNode) locate.apply(top)).set(index, r);
              return top;
            },
            out);
      }
      out.add(
          new Tamper(
              "appended to " + path,
              top -> {
                ((ArrayNode) locate.apply(top)).add("tampered");
                return top;
              }));
    }
  }

  private static List<JsonNode> replacements(JsonNode v) {
    List<JsonNode> out = new ArrayList<>();
    if (v.isTextual()) {
      String s = v.textValue();
      out.add(F.textNode(s + "x"));
      if (!s.isEmpty()) {
        out.add(F.textNode(s.substring(0, s.length() - 1)));
      }
      Instant t = Rfc3339.parse(s);
      if (t != null) {
        out.add(F.textNode(t.plusMillis(1).toString()));
        out.add(F.textNode(t.minusSeconds(60).toString()));
      }
      out.add(F.nullNode());
    } else if (v.isIntegralNumber()) {
      out.add(F.numberNode(v.longValue() + 1));
      out.add(F.textNode(v.asText()));
    } else if (v.isBoolean()) {
      out.add(F.booleanNode(!v.booleanValue()));
    } else if (v.isNull()) {
      out.add(F.textNode("x"));
      out.add(F.numberNode(0));
    } else if (v.isArray() || v.isObject()) {
      out.add(v.isArray() ? F.objectNode() : F.arrayNode());
    }
    return out;
  }
}
