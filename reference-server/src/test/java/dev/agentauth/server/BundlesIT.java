package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.server.ServerHarness.Resp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Agent scope bundles: create, list, get, edit, soft-delete (decisions §7). */
class BundlesIT {
  private static final String BUNDLES = "/v1/agent-scope-bundles";

  private ServerHarness h;

  @BeforeEach
  void start() {
    h = ServerHarness.start();
  }

  @AfterEach
  void stop() {
    h.close();
  }

  private ObjectNode support() {
    return h.json(
        """
        {"id":"support","agent_id":"support-bot",
         "scopes":[{"name":"tickets.read"},
                   {"name":"tickets.reply","constraints":{"max_per_day":3}}],
         "requires_confirm_for":["tickets.reply"],
         "escalation_targets":{"tickets.reply":"lead"},
         "default_expiry_days":7,"description":"Support desk"}""");
  }

  private Resp create(ObjectNode body) {
    return h.post(BUNDLES, body);
  }

  private void created(String id) {
    Resp r =
        create(
            h.json("{\"id\":\"" + id + "\",\"agent_id\":\"bot\",\"scopes\":[{\"name\":\"a\"}]}"));
    assertThat(r.status()).as(r.raw()).isEqualTo(201);
  }

  private static void assertInvalid(Resp r, String field) {
    assertThat(r.status()).as(r.raw()).isEqualTo(400);
    assertThat(r.code()).isEqualTo("invalid_request");
    assertThat(r.fields()).as(r.raw()).contains(field);
  }

  private List<String> listedIds() {
    Resp r = h.get(BUNDLES);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    List<String> ids = new ArrayList<>();
    r.body().path("bundles").forEach(b -> ids.add(b.path("id").asText()));
    return ids;
  }

  private int receiptCount() {
    return h.get("/v1/receipts").body().path("receipts").size();
  }

  @Test
  void createReturns201WithTheBundleStatusActiveAndTimestamps() {
    Resp r = create(support());

    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    JsonNode b = r.body();
    assertThat(b.path("id").asText()).isEqualTo("support");
    assertThat(b.path("agent_id").asText()).isEqualTo("support-bot");
    assertThat(b.path("scopes")).isEqualTo(support().path("scopes"));
    assertThat(b.path("scopes").get(0).has("constraints")).isFalse();
    assertThat(b.path("requires_confirm_for")).isEqualTo(support().path("requires_confirm_for"));
    assertThat(b.path("requires_escalation_for")).isEmpty();
    assertThat(b.path("escalation_targets")).isEqualTo(support().path("escalation_targets"));
    assertThat(b.path("default_expiry_days").asLong()).isEqualTo(7);
    assertThat(b.path("description").asText()).isEqualTo("Support desk");
    assertThat(b.path("status").asText()).isEqualTo("active");
    assertThat(b.path("created_at").asText()).isEqualTo("2026-11-22T10:00:00.000Z");
    assertThat(b.path("updated_at").asText()).isEqualTo("2026-11-22T10:00:00.000Z");
    assertThat(b.get("deleted_at").isNull()).isTrue();
  }

  @Test
  void optionalFieldsDefaultToEmptyOrNull() {
    Resp r = create(h.json("{\"id\":\"b\",\"agent_id\":\"bot\",\"scopes\":[{\"name\":\"a\"}]}"));
    assertThat(r.status()).isEqualTo(201);
    JsonNode b = r.body();
    assertThat(b.path("requires_confirm_for").isArray()).isTrue();
    assertThat(b.path("requires_confirm_for")).isEmpty();
    assertThat(b.path("requires_escalation_for")).isEmpty();
    assertThat(b.path("escalation_targets").isObject()).isTrue();
    assertThat(b.path("escalation_targets")).isEmpty();
    assertThat(b.get("default_expiry_days").isNull()).isTrue();
    assertThat(b.get("description").isNull()).isTrue();
  }

  @Test
  void createWithAnActiveIdReturns409BundleExists() {
    assertThat(create(support()).status()).isEqualTo(201);

    Resp again = create(support());

    assertThat(again.status()).as(again.raw()).isEqualTo(409);
    assertThat(again.code()).isEqualTo("bundle_exists");
    assertThat(again.fields()).containsExactly("id");
  }

  @Test
  void listReturnsOnlyActiveBundlesWithThePaginationShape() {
    created("b1");
    created("b2");
    created("b3");
    assertThat(h.delete(BUNDLES + "/b2").status()).isEqualTo(200);

    Resp r = h.get(BUNDLES);

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body().path("has_more").asBoolean()).isFalse();
    assertThat(r.body().get("next_cursor").isNull()).isTrue();
    assertThat(listedIds()).containsExactly("b1", "b3");
    assertThat(r.body().path("bundles").get(0).path("status").asText()).isEqualTo("active");
  }

  @Test
  void listPaginatesWithACursor() {
    for (int i = 0; i < 5; i++) {
      created("b" + i);
    }
    List<String> seen = new ArrayList<>();
    String cursor = null;
    do {
      Resp r = h.get(BUNDLES + "?limit=2" + (cursor == null ? "" : "&cursor=" + cursor));
      assertThat(r.status()).as(r.raw()).isEqualTo(200);
      assertThat(r.body().path("bundles").size()).isLessThanOrEqualTo(2);
      r.body().path("bundles").forEach(b -> seen.add(b.path("id").asText()));
      cursor = r.body().path("has_more").asBoolean() ? r.body().path("next_cursor").asText() : null;
    } while (cursor != null);
    assertThat(seen).containsExactly("b0", "b1", "b2", "b3", "b4");

    assertInvalid(h.get(BUNDLES + "?limit=0"), "limit");
    assertInvalid(h.get(BUNDLES + "?cursor=bm90LW91cnM"), "cursor");
  }

  @Test
  void aCursorOfAnotherListingIsRejected() {
    for (int i = 0; i < 2; i++) {
      Resp a =
          h.post(
              "/v1/authorizations",
              h.json(
                  "{\"user_id\":\"u\",\"agent_id\":\"a\",\"scopes\":[{\"name\":\"s\"}],"
                      + "\"expires_at\":\"2026-11-23T10:00:00Z\"}"));
      assertThat(a.status()).isEqualTo(201);
    }
    created("b1");
    String authCursor = h.get("/v1/authorizations?limit=1").body().path("next_cursor").asText();
    assertInvalid(h.get(BUNDLES + "?cursor=" + authCursor), "cursor");
  }

  @Test
  void getReturnsOneBundleAnd404ForUnknownOrDeleted() {
    assertThat(create(support()).status()).isEqualTo(201);

    Resp r = h.get(BUNDLES + "/support");
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body().path("id").asText()).isEqualTo("support");
    assertThat(r.body().path("status").asText()).isEqualTo("active");

    Resp unknown = h.get(BUNDLES + "/nope");
    assertThat(unknown.status()).isEqualTo(404);
    assertThat(unknown.code()).isEqualTo("not_found");

    assertThat(h.delete(BUNDLES + "/support").status()).isEqualTo(200);
    assertThat(h.get(BUNDLES + "/support").status()).isEqualTo(404);
  }

  @Test
  void putReplacesEveryField() {
    assertThat(create(support()).status()).isEqualTo(201);
    h.clock.advance(Duration.ofMinutes(5));

    Resp r =
        h.put(
            BUNDLES + "/support",
            h.json("{\"agent_id\":\"support-bot-2\",\"scopes\":[{\"name\":\"kb.search\"}]}"));

    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    JsonNode b = r.body();
    assertThat(b.path("id").asText()).isEqualTo("support");
    assertThat(b.path("agent_id").asText()).isEqualTo("support-bot-2");
    assertThat(b.path("scopes")).isEqualTo(h.json("{\"s\":[{\"name\":\"kb.search\"}]}").get("s"));
    assertThat(b.path("requires_confirm_for")).isEmpty();
    assertThat(b.path("escalation_targets")).isEmpty();
    assertThat(b.get("default_expiry_days").isNull()).isTrue();
    assertThat(b.get("description").isNull()).isTrue();
    assertThat(b.path("created_at").asText()).isEqualTo("2026-11-22T10:00:00.000Z");
    assertThat(b.path("updated_at").asText()).isEqualTo("2026-11-22T10:05:00.000Z");
    assertThat(h.get(BUNDLES + "/support").body()).isEqualTo(b);
  }

  @Test
  void putAcceptsTheIdWhenItEqualsThePath() {
    assertThat(create(support()).status()).isEqualTo(201);
    ObjectNode body = support();
    body.put("description", "edited");
    Resp r = h.put(BUNDLES + "/support", body);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    assertThat(r.body().path("description").asText()).isEqualTo("edited");
  }

  @Test
  void putWithAnotherIdReturns400() {
    assertThat(create(support()).status()).isEqualTo(201);
    ObjectNode body = support();
    body.put("id", "other");
    assertInvalid(h.put(BUNDLES + "/support", body), "id");
    assertThat(h.get(BUNDLES + "/support").body().path("description").asText())
        .isEqualTo("Support desk");
  }

  @Test
  void putOnUnknownOrDeletedBundleReturns404() {
    ObjectNode body = support();
    body.remove("id");
    Resp r = h.put(BUNDLES + "/nope", body);
    assertThat(r.status()).as(r.raw()).isEqualTo(404);
    assertThat(r.code()).isEqualTo("not_found");

    assertThat(create(support()).status()).isEqualTo(201);
    assertThat(h.delete(BUNDLES + "/support").status()).isEqualTo(200);
    assertThat(h.put(BUNDLES + "/support", body).status()).isEqualTo(404);
  }

  @Test
  void putValidatesLikePost() {
    assertThat(create(support()).status()).isEqualTo(201);
    assertInvalid(
        h.put(BUNDLES + "/support", h.json("{\"agent_id\":\"bot\",\"scopes\":[]}")), "scopes");
    assertInvalid(
        h.put(BUNDLES + "/support", h.json("{\"scopes\":[{\"name\":\"a\"}]}")), "agent_id");
  }

  @Test
  void editingOrDeletingABundleLeavesGrantedAuthorizationsUnaffected() {
    assertThat(create(support()).status()).isEqualTo(201);
    Resp auth =
        h.post("/v1/authorizations", h.json("{\"user_id\":\"u1\",\"bundle_id\":\"support\"}"));
    assertThat(auth.status()).as(auth.raw()).isEqualTo(201);
    String id = auth.body().path("authorization_id").asText();
    JsonNode before = h.get("/v1/authorizations/" + id).body();

    assertThat(
            h.put(
                    BUNDLES + "/support",
                    h.json("{\"agent_id\":\"other-bot\",\"scopes\":[{\"name\":\"x\"}]}"))
                .status())
        .isEqualTo(200);
    assertThat(h.get("/v1/authorizations/" + id).body()).isEqualTo(before);

    assertThat(h.delete(BUNDLES + "/support").status()).isEqualTo(200);
    JsonNode after = h.get("/v1/authorizations/" + id).body();
    assertThat(after).isEqualTo(before);
    assertThat(after.path("status").asText()).isEqualTo("active");

    Resp check =
        h.post(
            "/v1/check",
            h.json("{\"authorization_id\":\"" + id + "\",\"scopes\":[\"tickets.read\"]}"));
    assertThat(check.body().at("/results/tickets.read/decision").asText()).isEqualTo("allow");
  }

  @Test
  void deleteReturns200WithStatusDeletedAndDeletedAt() {
    assertThat(create(support()).status()).isEqualTo(201);
    h.clock.advance(Duration.ofSeconds(30));

    Resp r = h.delete(BUNDLES + "/support");

    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    assertThat(r.body().path("id").asText()).isEqualTo("support");
    assertThat(r.body().path("agent_id").asText()).isEqualTo("support-bot");
    assertThat(r.body().path("status").asText()).isEqualTo("deleted");
    assertThat(r.body().path("deleted_at").asText()).isEqualTo("2026-11-22T10:00:30.000Z");
    assertThat(listedIds()).isEmpty();
  }

  @Test
  void deleteAgainOrUnknownReturns404() {
    assertThat(create(support()).status()).isEqualTo(201);
    assertThat(h.delete(BUNDLES + "/support").status()).isEqualTo(200);

    Resp again = h.delete(BUNDLES + "/support");
    assertThat(again.status()).as(again.raw()).isEqualTo(404);
    assertThat(again.code()).isEqualTo("not_found");

    assertThat(h.delete(BUNDLES + "/never").status()).isEqualTo(404);
  }

  @Test
  void deleteRejectsABodyWithFields() {
    assertThat(create(support()).status()).isEqualTo(201);
    assertInvalid(h.delete(BUNDLES + "/support", h.json("{\"force\":true}")), "force");
    assertThat(listedIds()).containsExactly("support");
  }

  @Test
  void recreatingASoftDeletedIdIsAllowed() {
    assertThat(create(support()).status()).isEqualTo(201);
    assertThat(h.delete(BUNDLES + "/support").status()).isEqualTo(200);
    h.clock.advance(Duration.ofHours(1));

    Resp r =
        create(
            h.json("{\"id\":\"support\",\"agent_id\":\"new-bot\",\"scopes\":[{\"name\":\"b\"}]}"));

    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    assertThat(r.body().path("agent_id").asText()).isEqualTo("new-bot");
    assertThat(r.body().path("status").asText()).isEqualTo("active");
    assertThat(r.body().path("created_at").asText()).isEqualTo("2026-11-22T11:00:00.000Z");
    assertThat(r.body().get("deleted_at").isNull()).isTrue();
    assertThat(listedIds()).containsExactly("support");
  }

  @Test
  void invalidBundlesReturn400NamingTheField() {
    String base = "\"agent_id\":\"bot\",\"scopes\":[{\"name\":\"a\"},{\"name\":\"b\"}]";
    assertInvalid(create(h.json("{" + base + "}")), "id");
    assertInvalid(create(h.json("{\"id\":\"\"," + base + "}")), "id");
    assertInvalid(create(h.json("{\"id\":\"" + "i".repeat(257) + "\"," + base + "}")), "id");
    assertInvalid(create(h.json("{\"id\":\"a\\u0007\"," + base + "}")), "id");
    assertInvalid(create(h.json("{\"id\":\"x\",\"scopes\":[{\"name\":\"a\"}]}")), "agent_id");
    assertInvalid(create(h.json("{\"id\":\"x\",\"agent_id\":\"bot\"}")), "scopes");
    assertInvalid(
        create(h.json("{\"id\":\"x\",\"agent_id\":\"bot\",\"scopes\":[{\"name\":\"a b\"}]}")),
        "scopes[0].name");
    assertInvalid(
        create(
            h.json(
                "{\"id\":\"x\",\"agent_id\":\"bot\",\"scopes\":[{\"name\":\"a\"},{\"name\":\"a\"}]}")),
        "scopes[1].name");
    assertInvalid(
        create(h.json("{\"id\":\"x\"," + base + ",\"requires_confirm_for\":[\"c\"]}")),
        "requires_confirm_for[0]");
    assertInvalid(
        create(h.json("{\"id\":\"x\"," + base + ",\"requires_escalation_for\":[\"c\"]}")),
        "requires_escalation_for[0]");
    assertInvalid(
        create(h.json("{\"id\":\"x\"," + base + ",\"escalation_targets\":{\"c\":\"boss\"}}")),
        "escalation_targets.c");
    assertInvalid(
        create(h.json("{\"id\":\"x\"," + base + ",\"default_expiry_days\":0}")),
        "default_expiry_days");
    assertInvalid(
        create(h.json("{\"id\":\"x\"," + base + ",\"default_expiry_days\":367}")),
        "default_expiry_days");
    assertInvalid(
        create(h.json("{\"id\":\"x\"," + base + ",\"default_expiry_days\":\"7\"}")),
        "default_expiry_days");
    assertInvalid(
        create(h.json("{\"id\":\"x\"," + base + ",\"description\":\"" + "d".repeat(2001) + "\"}")),
        "description");
    assertInvalid(
        create(
            h.json(
                "{\"id\":\"x\",\"agent_id\":\"bot\",\"scopes\":[{\"name\":\"a\",\"constraints\":{\"max_per_day\":0}}]}")),
        "scopes[0].constraints.max_per_day");
    assertInvalid(create(h.json("{\"id\":\"x\"," + base + ",\"expires_at\":\"x\"}")), "expires_at");

    Resp pii =
        create(
            h.json(
                "{\"id\":\"x\",\"agent_id\":\"bot@example.com\",\"scopes\":[{\"name\":\"a\"}]}"));
    assertThat(pii.status()).isEqualTo(400);
    assertThat(pii.code()).isEqualTo("pii_not_allowed");

    assertThat(listedIds()).isEmpty();
  }

  @Test
  void bundleLimitsAreAccepted() {
    ObjectNode body = h.json("{\"id\":\"" + "i".repeat(256) + "\",\"agent_id\":\"bot\"}");
    var scopes = body.putArray("scopes");
    for (int i = 0; i < 100; i++) {
      scopes.addObject().put("name", "s" + i);
    }
    body.put("default_expiry_days", 366);
    body.put("description", "d".repeat(2000));
    assertThat(create(body).status()).isEqualTo(201);

    scopes.addObject().put("name", "s100");
    body.put("id", "too-many");
    assertInvalid(create(body), "scopes");
  }

  @Test
  void requiresEscalationForOnTheFreePlanReturns402() {
    h.useApiKey(h.newWorkspace("ws_free", "free"));
    ObjectNode body = support();
    body.putArray("requires_escalation_for").add("tickets.reply");

    Resp r = create(body);

    assertThat(r.status()).as(r.raw()).isEqualTo(402);
    assertThat(r.code()).isEqualTo("plan_required");
    assertThat(r.fields()).containsExactly("requires_escalation_for");
    assertThat(listedIds()).isEmpty();

    body.putArray("requires_escalation_for");
    assertThat(create(body).status()).isEqualTo(201);
    body.putArray("requires_escalation_for").add("tickets.reply");
    assertThat(h.put(BUNDLES + "/support", body).status()).isEqualTo(402);
  }

  @Test
  void bundlesAreScopedPerWorkspace() {
    assertThat(create(support()).status()).isEqualTo(201);
    String mine = h.apiKey();
    h.useApiKey(h.newWorkspace("ws_other", "pro"));

    assertThat(listedIds()).isEmpty();
    assertThat(h.get(BUNDLES + "/support").status()).isEqualTo(404);
    assertThat(h.delete(BUNDLES + "/support").status()).isEqualTo(404);
    assertThat(h.put(BUNDLES + "/support", support()).status()).isEqualTo(404);
    Resp theirs = create(support()); // the same id is free in another workspace
    assertThat(theirs.status()).as(theirs.raw()).isEqualTo(201);
    assertThat(h.delete(BUNDLES + "/support").status()).isEqualTo(200);

    h.useApiKey(mine);
    assertThat(listedIds()).containsExactly("support");
  }

  @Test
  void bundleOperationsProduceNoReceipt() {
    assertThat(receiptCount()).isZero();
    assertThat(create(support()).status()).isEqualTo(201);
    ObjectNode edit = support();
    edit.put("description", "v2");
    assertThat(h.put(BUNDLES + "/support", edit).status()).isEqualTo(200);
    assertThat(h.get(BUNDLES + "/support").status()).isEqualTo(200);
    assertThat(h.get(BUNDLES).status()).isEqualTo(200);
    assertThat(h.delete(BUNDLES + "/support").status()).isEqualTo(200);
    assertThat(create(support()).status()).isEqualTo(201);
    assertThat(receiptCount()).isZero();
  }
}
