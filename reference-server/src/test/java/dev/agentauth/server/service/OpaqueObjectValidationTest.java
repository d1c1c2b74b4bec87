package dev.agentauth.server.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.server.service.ServiceException.FieldProblem;
import org.junit.jupiter.api.Test;

/**
 * {@code metadata} and {@code context}: the limits of decisions.md §2, checked in time linear in
 * the request and reported in bounded space, however hostile the object.
 */
class OpaqueObjectValidationTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static ServiceException validate(JsonNode context) {
    Validation v = new Validation();
    v.opaqueObject("context", context);
    return catchThrowableOfType(ServiceException.class, v::throwIfInvalid);
  }

  /** Fourteen nested long keys, then many non-integer leaves: the shape that exhausted memory. */
  private static ObjectNode deepLongKeys(int keyLength, int leaves, double leaf) {
    ObjectNode root = MAPPER.createObjectNode();
    ObjectNode cur = root;
    for (int level = 0; level < 14; level++) {
      cur = cur.putObject(String.valueOf((char) ('a' + level)).repeat(keyLength));
    }
    for (int i = 0; i < leaves; i++) {
      cur.put("k" + i, leaf);
    }
    return root;
  }

  @Test
  void anOversizedObjectIsOneSizeErrorWhateverItHolds() {
    ServiceException e = validate(deepLongKeys(5_000, 2_000, 1.5));

    assertThat(e.errors())
        .containsExactly(
            new FieldProblem("context", "must be at most 16384 bytes serialized, got more"));
  }

  @Test
  void anObjectWithinTheSizeIsWalkedAndReportsAtMostTwentyProblems() {
    ObjectNode context = MAPPER.createObjectNode();
    ObjectNode inner = context.putObject("a").putObject("b");
    for (int i = 0; i < 500; i++) {
      inner.put("n" + i, 0.5);
    }

    ServiceException e = validate(context);

    assertThat(e.errors()).hasSize(Validation.MAX_REPORTED);
    assertThat(e.errors().get(0))
        .isEqualTo(
            new FieldProblem(
                "context.a.b.n0", "numbers must be integers within ±(2^53-1), got 0.5"));
    assertThat(e.detail()).isEqualTo("20 or more problems found; the first 20 are listed");
  }

  @Test
  void pathsNameArraysAndObjectsAsTheRequestSpellsThem() {
    ObjectNode context = MAPPER.createObjectNode();
    context.putArray("tags").add("x").add(MAPPER.createObjectNode().put("w", 1e3));

    ServiceException e = validate(context);

    assertThat(e.errors())
        .containsExactly(
            new FieldProblem(
                "context.tags[1].w", "numbers must be integers within ±(2^53-1), got 1000.0"));
    assertThat(e.detail())
        .isEqualTo("context.tags[1].w: numbers must be integers within ±(2^53-1), got 1000.0");
  }

  @Test
  void memberNamesAreAtMost256Characters() {
    ObjectNode context = MAPPER.createObjectNode();
    context.put("k".repeat(256), 1);
    assertThat(validate(context)).isNull();

    context.put("x".repeat(257), 1);
    ServiceException e = validate(context);

    assertThat(e.errors()).hasSize(1);
    assertThat(e.errors().get(0).field()).isEqualTo("context." + "x".repeat(57) + "...");
    assertThat(e.errors().get(0).message())
        .isEqualTo("member names must be at most 256 characters");
  }

  @Test
  void nestingDeeperThanSixteenIsReportedOnceAtTheFirstTooDeepLevel() {
    ObjectNode context = MAPPER.createObjectNode();
    ObjectNode cur = context;
    for (int i = 0; i < 40; i++) {
      cur = cur.putObject("d");
    }

    ServiceException e = validate(context);

    assertThat(e.errors()).hasSize(1);
    assertThat(e.errors().get(0).field()).isEqualTo("context" + ".d".repeat(16));
    assertThat(e.errors().get(0).message()).isEqualTo("nests deeper than 16 levels");
  }

  @Test
  void exactlySixteenKibibytesIsAllowedAndOneByteMoreIsNot() {
    ObjectNode context = MAPPER.createObjectNode();
    // {"v":"..."} is 8 bytes of framing.
    context.put("v", "x".repeat(16 * 1024 - 8));
    assertThat(context.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8))
        .hasSize(16 * 1024);
    assertThat(validate(context)).isNull();

    context.put("v", "x".repeat(16 * 1024 - 7));
    assertThat(validate(context).errors()).hasSize(1);
  }

  @Test
  void sizeCountsUtf8BytesOfTheCompactForm() {
    ObjectNode context = MAPPER.createObjectNode();
    // é is two bytes in UTF-8: 8 bytes of framing + 2 × 8,188 = 16,384.
    context.put("v", "é".repeat(8_188));
    assertThat(validate(context)).isNull();
    context.put("v", "é".repeat(8_189));
    assertThat(validate(context).errors()).hasSize(1);
  }

  @Test
  void integersOutsideTheSafeRangeAreRefusedAtBothEndsIncludingTheSmallestLong() {
    for (long n : new long[] {Long.MIN_VALUE, -9_007_199_254_740_992L, 9_007_199_254_740_992L}) {
      ObjectNode context = MAPPER.createObjectNode().put("n", n);
      ServiceException e = validate(context);
      assertThat(e).as("%d", n).isNotNull();
      assertThat(e.errors())
          .extracting(ServiceException.FieldProblem::field)
          .containsExactly("context.n");
    }
    for (long n : new long[] {-9_007_199_254_740_991L, 0, 9_007_199_254_740_991L}) {
      assertThat(validate(MAPPER.createObjectNode().put("n", n))).as("%d", n).isNull();
    }
  }
}
