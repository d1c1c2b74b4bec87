package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.server.ServerHarness.Resp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The size of a rule set: at most 100 {@code allowed_initiators} per scope and 64 KiB of {@code
 * scopes} (constraints included, compact UTF-8 JSON) per authorization or bundle.
 */
class RuleSetLimitsIT {
  private ServerHarness h;

  @BeforeEach
  void start() {
    h = ServerHarness.start();
  }

  @AfterEach
  void stop() {
    h.close();
  }

  /** {@code scopes} of {@code count} scopes, each with {@code initiators} initiators of length. */
  private ArrayNode scopes(int count, int initiators, int length) {
    ArrayNode scopes = h.mapper.createArrayNode();
    for (int i = 0; i < count; i++) {
      ArrayNode ai =
          scopes
              .addObject()
              .put("name", "s" + i)
              .putObject("constraints")
              .putArray("allowed_initiators");
      for (int j = 0; j < initiators; j++) {
        String n = "u" + j + "-";
        ai.add(n + "x".repeat(Math.max(0, length - n.length())));
      }
    }
    return scopes;
  }

  private Resp authorize(ArrayNode scopes) {
    ObjectNode body = h.mapper.createObjectNode();
    body.put("user_id", "user_1").put("agent_id", "agent_1");
    body.put("expires_at", CheckFixtures.EXPIRES);
    body.set("scopes", scopes);
    return h.post("/v1/authorizations", body);
  }

  private Resp bundle(ArrayNode scopes) {
    ObjectNode body = h.mapper.createObjectNode();
    body.put("id", "b1").put("agent_id", "agent_1");
    body.set("scopes", scopes);
    return h.post("/v1/agent-scope-bundles", body);
  }

  private static void assertInvalid(Resp r, String field) {
    assertThat(r.status()).as(r.raw().substring(0, Math.min(500, r.raw().length()))).isEqualTo(400);
    assertThat(r.code()).isEqualTo("invalid_request");
    assertThat(r.fields()).containsExactly(field);
  }

  @Test
  void aHundredInitiatorsPerScopeAreAccepted() {
    assertThat(authorize(scopes(1, 100, 20)).status()).isEqualTo(201);
    assertThat(bundle(scopes(1, 100, 20)).status()).isEqualTo(201);
  }

  @Test
  void moreThanAHundredInitiatorsInAScopeAre400NamingTheList() {
    ArrayNode scopes = scopes(2, 1, 10);
    scopes.add(((ObjectNode) scopes(1, 101, 10).get(0)).put("name", "big"));
    Resp r = authorize(scopes);
    assertInvalid(r, "scopes[2].constraints.allowed_initiators");
    assertThat(r.raw()).contains("at most 100 entries, got 101");
    assertInvalid(bundle(scopes), "scopes[2].constraints.allowed_initiators");
  }

  @Test
  void tenThousandInitiatorsGetOneErrorNotOnePerEntry() {
    Resp r = authorize(scopes(1, 10_000, 3));
    assertInvalid(r, "scopes[0].constraints.allowed_initiators");
  }

  @Test
  void aRuleSetOver64KiBIs400NamingScopes() {
    // 3 scopes × 100 initiators × 256 characters: every entry valid, ~77 KiB in all.
    ArrayNode scopes = scopes(3, 100, 256);
    Resp r = authorize(scopes);
    assertInvalid(r, "scopes");
    assertThat(r.raw()).contains("at most 65536 bytes");
    assertInvalid(bundle(scopes), "scopes");
    assertThat(h.get("/v1/authorizations").body().path("authorizations")).isEmpty();
  }

  @Test
  void aRuleSetJustUnder64KiBIsAccepted() {
    // 2 scopes × 100 initiators × 256 characters: ~51 KiB.
    assertThat(authorize(scopes(2, 100, 256)).status()).isEqualTo(201);
    assertThat(bundle(scopes(2, 100, 256)).status()).isEqualTo(201);
  }
}
