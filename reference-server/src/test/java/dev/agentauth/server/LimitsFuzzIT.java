package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.server.ServerHarness.Resp;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Property-based test of every documented input limit (docs/server.md "Limits"): random requests
 * whose every value sits at a limit or just inside it, with at most one value pushed just past its
 * limit. A request within every limit is accepted; one with a value past a limit is 400 naming that
 * field; nothing is ever answered 5xx. Seeded, so a failure names the seed that reproduces it.
 */
class LimitsFuzzIT {
  private static final long SEED = 0x14_14_14L;
  private static final int ROUNDS = 120;
  private static final long MAX_SAFE = 9_007_199_254_740_991L;

  private ServerHarness h;
  private Random random;

  @BeforeEach
  void start() {
    h = ServerHarness.start();
    random = new Random(SEED);
  }

  @AfterEach
  void stop() {
    h.close();
  }

  /** A value for one field: within its limits, or (when {@code broken}) just past one of them. */
  private record Value(JsonNode json, String field) {}

  /** Which field, if any, this request breaks. */
  private String pick(List<String> fields) {
    int i = random.nextInt(fields.size() + 2);
    return i < fields.size() ? fields.get(i) : null;
  }

  /** {@code length} characters of {@code fill}, some of them {@code é} (two bytes in UTF-8). */
  private String text(int length, char fill) {
    StringBuilder sb = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      sb.append(fill != 'n' && i % 7 == 3 && random.nextBoolean() ? 'é' : fill);
    }
    return sb.toString();
  }

  /** An identifier: 1–256 characters, no control characters. */
  private String identifier(boolean broken) {
    if (!broken) {
      int length = random.nextBoolean() ? 256 : 1 + random.nextInt(256);
      String s = text(length, 'i');
      // A surrogate pair is two characters and valid Unicode.
      return length >= 2 && random.nextInt(4) == 0 ? s.substring(0, length - 2) + "😀" : s;
    }
    return switch (random.nextInt(4)) {
      case 0 -> "";
      case 1 -> text(257, 'i');
      case 2 -> "ab\u0007cd";
      default -> "ab\ud800cd";
    };
  }

  private String scopeName(int i, boolean broken) {
    if (!broken) {
      String name = "s" + i + ".";
      return name + text(random.nextBoolean() ? 200 - name.length() - 1 : 3, 'n') + "x";
    }
    return switch (random.nextInt(4)) {
      case 0 -> "s" + i + text(200, 'n');
      case 1 -> "s" + i + " space";
      case 2 -> ".s" + i;
      default -> "";
    };
  }

  /**
   * A metadata/context object: at most 16 KiB, depth at most 16, member names at most 256
   * characters, integers within ±(2^53−1); {@code broken} breaks exactly one of those.
   */
  private ObjectNode opaque(boolean broken) {
    ObjectNode root = h.mapper.createObjectNode();
    int kind = broken ? random.nextInt(5) : -1;
    ObjectNode deepest = root;
    int depth = kind == 0 ? 17 : 1 + random.nextInt(16);
    for (int d = 1; d < depth; d++) {
      deepest = deepest.putObject("d");
    }
    deepest.put("max", random.nextBoolean() ? MAX_SAFE : -MAX_SAFE);
    deepest.put("k".repeat(kind == 1 ? 257 : 256), 1);
    if (kind == 2) {
      deepest.put("n", MAX_SAFE + 1);
    } else if (kind == 3) {
      deepest.put("n", random.nextBoolean() ? 1.5 : 1e3);
    }
    ArrayNode tags = root.putArray("tags");
    tags.add("ok").add(true).addNull();
    int size = root.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    // ,"pad":"" adds nine bytes before the padding itself.
    int room = 16 * 1024 - size - 9;
    if (kind == 4 || random.nextBoolean()) {
      root.put("pad", "p".repeat(kind == 4 ? room + 1 : room));
    }
    return root;
  }

  private static void assertAnswer(Resp r, String broken, String prefix, int okStatus, long seed) {
    String what = "round seed %d, broken %s: %s".formatted(seed, broken, r.raw());
    assertThat(r.status()).as(what).isLessThan(500);
    if (broken == null) {
      assertThat(r.status()).as(what).isEqualTo(okStatus);
    } else {
      assertThat(r.status()).as(what).isEqualTo(400);
      assertThat(r.code()).as(what).isEqualTo("invalid_request");
      assertThat(r.fields()).as(what).anyMatch(f -> f.equals(prefix) || f.startsWith(prefix));
    }
  }

  @Test
  void authorizationsWithinEveryLimitAreCreatedAndOnePastALimitIs400NamingIt() {
    for (int round = 0; round < ROUNDS; round++) {
      long seed = random.nextLong();
      random.setSeed(seed);
      String broken =
          pick(List.of("user_id", "agent_id", "scopes", "scopes[0].name", "metadata", "note"));
      ObjectNode body = h.mapper.createObjectNode();
      body.put("user_id", identifier("user_id".equals(broken)));
      body.put("agent_id", identifier("agent_id".equals(broken)));
      int count =
          "scopes".equals(broken)
              ? (random.nextBoolean() ? 0 : 101)
              : (random.nextBoolean() ? 100 : 1 + random.nextInt(100));
      ArrayNode scopes = body.putArray("scopes");
      for (int i = 0; i < count; i++) {
        ObjectNode scope =
            scopes.addObject().put("name", scopeName(i, i == 0 && "scopes[0].name".equals(broken)));
        if (i == 0 && random.nextBoolean()) {
          scope
              .putObject("constraints")
              .put("max_per_day", random.nextBoolean() ? 1 : MAX_SAFE)
              .put("resource_pattern", "*a".repeat(random.nextInt(128)) + "?");
        }
      }
      body.set("metadata", opaque("metadata".equals(broken)));
      body.put("expires_at", CheckFixtures.EXPIRES);
      if ("note".equals(broken)) {
        // note is not a field of authorizations: an unknown field is named too.
        body.put("note", text(2_001, 'w'));
      }
      Resp r = h.post("/v1/authorizations", body);
      assertAnswer(r, broken, broken == null ? "" : broken, 201, seed);
    }
  }

  @Test
  void checksWithinEveryLimitAreDecidedAndOnePastALimitIs400NamingIt() {
    List<String> names = new ArrayList<>();
    ArrayNode scopes = h.mapper.createArrayNode();
    for (int i = 0; i < 21; i++) {
      names.add("s" + i);
      scopes.addObject().put("name", "s" + i);
    }
    ObjectNode auth = h.mapper.createObjectNode();
    auth.set("scopes", scopes);
    String id = CheckFixtures.authorize(h, auth.toString());

    for (int round = 0; round < ROUNDS; round++) {
      long seed = random.nextLong();
      random.setSeed(seed);
      String broken = pick(List.of("scopes", "resource", "session_id", "context"));
      ObjectNode body = h.mapper.createObjectNode().put("authorization_id", id);
      ArrayNode list = body.putArray("scopes");
      int count =
          "scopes".equals(broken)
              ? (random.nextBoolean() ? 0 : 21)
              : (random.nextBoolean() ? 20 : 1 + random.nextInt(20));
      for (int i = 0; i < count; i++) {
        list.add(names.get(i));
      }
      if ("resource".equals(broken) || random.nextBoolean()) {
        body.put("resource", identifier("resource".equals(broken)));
      }
      if ("session_id".equals(broken) || random.nextBoolean()) {
        body.put("session_id", identifier("session_id".equals(broken)));
      }
      if ("context".equals(broken) || random.nextBoolean()) {
        body.set("context", opaque("context".equals(broken)));
      }
      Resp r = h.post("/v1/check", body);
      assertAnswer(r, broken, broken == null ? "" : broken, 200, seed);
      if (broken == null) {
        assertThat(r.body().path("results").size()).isEqualTo(count);
      }
    }
  }
}
