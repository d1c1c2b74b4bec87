package dev.agentauth.verifier.vectors;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.verifier.ReceiptVerifier;
import dev.agentauth.verifier.VerificationResult;
import dev.agentauth.verifier.VerificationStep;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Exhaustive tampering of every receipt of {@code docs/receipt-vectors.json} that verifies: any
 * single change to any member at any depth (top level, {@code context} and everything inside it,
 * {@code policy_eval}, {@code signature}), and any flipped bit or byte of the decoded signature,
 * must make verification fail.
 */
class OwnVectorsTamperTest {

  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final ReceiptVerifier VERIFIER = ReceiptVectors.verifier();

  static Stream<Arguments> verifying() {
    return ReceiptVectors.arguments(ReceiptVectors.verifying()).stream();
  }

  /** One single change: where, what, and how to apply it to a copy of the receipt. */
  private record Tamper(String description, Consumer<ObjectNode> apply) {}

  @ParameterizedTest(name = "{0}")
  @MethodSource("verifying")
  void everySingleChangeToAnyMemberIsDetected(String name, JsonNode vector) {
    ObjectNode receipt = (ObjectNode) vector.get("receipt");
    assertThat(VERIFIER.verify(receipt).valid()).as("untampered").isTrue();

    List<Tamper> tampers = new ArrayList<>();
    tampersOf(receipt, "$", List.of(), tampers);
    List<String> undetected = new ArrayList<>();
    for (Tamper t : tampers) {
      ObjectNode copy = receipt.deepCopy();
      t.apply().accept(copy);
      if (copy.equals(receipt)) {
        throw new IllegalStateException("tamper changes nothing: " + t.description());
      }
      VerificationResult fromTree = VERIFIER.verify(copy);
      VerificationResult fromText = VERIFIER.verify(ReceiptVectors.json(copy));
      if (fromTree.valid() || fromText.valid()) {
        undetected.add(t.description());
      }
    }

    assertThat(undetected).as(name).isEmpty();
    assertThat(tampers.size()).as("tampers tried").isGreaterThan(60);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("verifying")
  void everyFlippedBitOrByteOfTheSignatureIsDetected(String name, JsonNode vector) {
    ObjectNode receipt = (ObjectNode) vector.get("receipt");
    byte[] signature =
        Base64.getUrlDecoder().decode(receipt.get("signature").get("value").textValue());
    assertThat(signature).hasSize(64);
    int[] masks = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xFF};
    List<String> wrong = new ArrayList<>();

    for (int i = 0; i < signature.length; i++) {
      for (int mask : masks) {
        byte[] flipped = signature.clone();
        flipped[i] ^= (byte) mask;
        ObjectNode copy = receipt.deepCopy();
        ((ObjectNode) copy.get("signature"))
            .put("value", Base64.getUrlEncoder().withoutPadding().encodeToString(flipped));

        VerificationResult result = VERIFIER.verify(ReceiptVectors.json(copy));

        if (result.valid() || result.failedStep() != VerificationStep.SIGNATURE) {
          wrong.add("byte " + i + " ^ 0x" + Integer.toHexString(mask) + ": " + result);
        }
      }
    }

    assertThat(wrong).as(name).isEmpty();
  }

  /**
   * Collects every single change of {@code value} (at {@code path}, reached from the receipt root
   * through {@code steps}) and, recursively, of everything inside it.
   */
  private static void tampersOf(JsonNode value, String path, List<Object> steps, List<Tamper> out) {
    boolean root = steps.isEmpty();
    if (!root) {
      for (JsonNode replacement : replacements(value)) {
        out.add(
            new Tamper(
                path + " := " + ReceiptVectors.json(replacement),
                r -> replace(r, steps, replacement.deepCopy())));
      }
      out.add(new Tamper("remove " + path, r -> remove(r, steps)));
    }
    if (value.isObject()) {
      for (var e : value.properties()) {
        List<Object> child = append(steps, e.getKey());
        tampersOf(e.getValue(), path + "." + e.getKey(), child, out);
        out.add(
            new Tamper(
                "rename " + path + "." + e.getKey(),
                r -> {
                  ObjectNode parent = (ObjectNode) locate(r, steps);
                  JsonNode moved = parent.remove(e.getKey());
                  parent.set(e.getKey() + "_", moved);
                }));
      }
      out.add(
          new Tamper(
              "add a member to " + path,
              r -> ((ObjectNode) locate(r, steps)).put("tampered", "x")));
    } else if (value.isArray()) {
      for (int i = 0; i < value.size(); i++) {
        tampersOf(value.get(i), path + "[" + i + "]", append(steps, i), out);
      }
      out.add(
          new Tamper("append an element to " + path, r -> ((ArrayNode) locate(r, steps)).add("x")));
    }
  }

  /** Same-type replacements (strings, numbers, booleans), a string for null, null otherwise. */
  private static List<JsonNode> replacements(JsonNode v) {
    List<JsonNode> out = new ArrayList<>();
    if (v.isTextual()) {
      String s = v.textValue();
      out.add(F.textNode(s + "x"));
      out.add(F.textNode(tweakLast(s)));
    } else if (v.isIntegralNumber()) {
      out.add(F.numberNode(v.longValue() + 1));
      out.add(F.numberNode(v.longValue() - 1));
    } else if (v.isBoolean()) {
      out.add(F.booleanNode(!v.booleanValue()));
    } else if (v.isNull()) {
      out.add(F.textNode("x"));
      out.add(F.textNode(""));
    } else if (v.isObject() || v.isArray()) {
      out.add(v.isObject() ? F.arrayNode() : F.objectNode());
    }
    if (!v.isNull()) {
      out.add(F.nullNode());
    }
    return out;
  }

  /** {@code s} with its last character replaced by a similar one (a digit by a digit...). */
  private static String tweakLast(String s) {
    if (s.isEmpty()) {
      return "x";
    }
    char c = s.charAt(s.length() - 1);
    char d;
    if (c >= '0' && c <= '9') {
      d = c == '9' ? '0' : (char) (c + 1);
    } else if (c >= 'a' && c <= 'z') {
      d = c == 'z' ? 'a' : (char) (c + 1);
    } else if (c >= 'A' && c <= 'Z') {
      d = c == 'Z' ? 'A' : (char) (c + 1);
    } else {
      d = c == 'x' ? 'y' : 'x';
    }
    return s.substring(0, s.length() - 1) + d;
  }

  private static List<Object> append(List<Object> steps, Object step) {
    List<Object> out = new ArrayList<>(steps);
    out.add(step);
    return List.copyOf(out);
  }

  private static JsonNode locate(JsonNode root, List<Object> steps) {
    JsonNode n = root;
    for (Object step : steps) {
      n = step instanceof Integer i ? n.get(i) : n.get((String) step);
    }
    return n;
  }

  private static void replace(ObjectNode root, List<Object> steps, JsonNode replacement) {
    JsonNode parent = locate(root, steps.subList(0, steps.size() - 1));
    Object last = steps.get(steps.size() - 1);
    if (last instanceof Integer i) {
      ((ArrayNode) parent).set(i, replacement);
    } else {
      ((ObjectNode) parent).set((String) last, replacement);
    }
  }

  private static void remove(ObjectNode root, List<Object> steps) {
    JsonNode parent = locate(root, steps.subList(0, steps.size() - 1));
    Object last = steps.get(steps.size() - 1);
    if (last instanceof Integer i) {
      ((ArrayNode) parent).remove(i);
    } else {
      ((ObjectNode) parent).remove((String) last);
    }
  }
}
