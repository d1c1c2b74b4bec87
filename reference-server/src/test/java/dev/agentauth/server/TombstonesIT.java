package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.server.ServerHarness.Resp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Tombstones: permanent blocks on exact resource strings (decisions §8). */
class TombstonesIT {
  private static final String TOMBSTONES = "/v1/tombstones";

  private ServerHarness h;

  @BeforeEach
  void start() {
    h = ServerHarness.start();
  }

  @AfterEach
  void stop() {
    h.close();
  }

  private Resp tombstone(String resource, String reason) {
    ObjectNode body = h.json("{}").put("resource", resource);
    if (reason != null) {
      body.put("reason", reason);
    }
    return h.post(TOMBSTONES, body);
  }

  private String authorization() {
    Resp r =
        h.post(
            "/v1/authorizations",
            h.json(
                """
                {"user_id":"u1","agent_id":"a1","scopes":[{"name":"docs.delete"}],
                 "expires_at":"2026-11-23T10:00:00Z"}"""));
    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    return r.body().path("authorization_id").asText();
  }

  private Resp check(String authorizationId, String resource) {
    ObjectNode body =
        h.json("{\"scopes\":[\"docs.delete\"]}").put("authorization_id", authorizationId);
    if (resource != null) {
      body.put("resource", resource);
    }
    Resp r = h.post("/v1/check", body);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    return r;
  }

  private static String decision(Resp check) {
    return check.body().at("/results/docs.delete/decision").asText()
        + "/"
        + check.body().at("/results/docs.delete/reason").asText();
  }

  private static void assertInvalid(Resp r, String field) {
    assertThat(r.status()).as(r.raw()).isEqualTo(400);
    assertThat(r.code()).isEqualTo("invalid_request");
    assertThat(r.fields()).as(r.raw()).contains(field);
  }

  private List<String> listed(String query) {
    Resp r = h.get(TOMBSTONES + query);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    List<String> out = new ArrayList<>();
    r.body().path("tombstones").forEach(t -> out.add(t.path("resource").asText()));
    return out;
  }

  @Test
  void createReturns201WithTheTombstone() {
    Resp r = tombstone("doc/1", "legal hold");

    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    assertThat(r.body())
        .isEqualTo(
            h.json(
                """
                {"resource":"doc/1","reason":"legal hold","created_at":"2026-11-22T10:00:00.000Z"}"""));
  }

  @Test
  void reasonIsOptional() {
    Resp r = tombstone("doc/1", null);
    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    assertThat(r.body().get("reason").isNull()).isTrue();
  }

  @Test
  void tombstoningAgainReturns200WithTheSameBody() {
    Resp first = tombstone("doc/1", "legal hold");
    h.clock.advance(Duration.ofHours(2));

    Resp second = tombstone("doc/1", "legal hold");
    Resp otherReason = tombstone("doc/1", "something else");

    assertThat(second.status()).as(second.raw()).isEqualTo(200);
    assertThat(second.raw()).isEqualTo(first.raw());
    assertThat(otherReason.status()).isEqualTo(200);
    assertThat(otherReason.raw()).isEqualTo(first.raw());
    assertThat(listed("")).containsExactly("doc/1");
  }

  @Test
  void listReturnsTombstonesWithPagination() {
    for (String r : List.of("c", "a", "e", "b", "d")) {
      assertThat(tombstone(r, null).status()).isEqualTo(201);
    }
    Resp all = h.get(TOMBSTONES);
    assertThat(all.body().path("has_more").asBoolean()).isFalse();
    assertThat(all.body().get("next_cursor").isNull()).isTrue();
    assertThat(all.body().path("tombstones").get(0).has("created_at")).isTrue();

    List<String> seen = new ArrayList<>();
    String cursor = null;
    int pages = 0;
    do {
      Resp r = h.get(TOMBSTONES + "?limit=2" + (cursor == null ? "" : "&cursor=" + cursor));
      assertThat(r.status()).as(r.raw()).isEqualTo(200);
      r.body().path("tombstones").forEach(t -> seen.add(t.path("resource").asText()));
      cursor = r.body().path("has_more").asBoolean() ? r.body().path("next_cursor").asText() : null;
      pages++;
    } while (cursor != null);

    assertThat(pages).isEqualTo(3);
    assertThat(seen).containsExactlyInAnyOrder("a", "b", "c", "d", "e");
    assertInvalid(h.get(TOMBSTONES + "?limit=101"), "limit");
    assertInvalid(h.get(TOMBSTONES + "?cursor=not!ours"), "cursor");
  }

  @Test
  void aTombstonedResourceMakesChecksDenyResourceTombstoned() {
    String id = authorization();
    assertThat(decision(check(id, "doc/1"))).isEqualTo("allow/authorization_granted_scope_active");

    assertThat(tombstone("doc/1", "deleted by user").status()).isEqualTo(201);

    Resp denied = check(id, "doc/1");
    assertThat(decision(denied)).isEqualTo("deny/resource_tombstoned");
    assertThat(h.verifyChain(id)).isEqualTo(3);
  }

  @Test
  void tombstonesMatchTheExactResourceStringOnly() {
    String id = authorization();
    assertThat(tombstone("doc/1", null).status()).isEqualTo(201);
    assertThat(tombstone("files/*", null).status()).isEqualTo(201);

    assertThat(decision(check(id, "doc/1"))).isEqualTo("deny/resource_tombstoned");
    assertThat(decision(check(id, "files/*"))).isEqualTo("deny/resource_tombstoned");
    for (String other : List.of("doc/10", "DOC/1", "doc/1 ", " doc/1", "doc", "files/a")) {
      assertThat(decision(check(id, other)))
          .as(other)
          .isEqualTo("allow/authorization_granted_scope_active");
    }
    assertThat(decision(check(id, null))).isEqualTo("allow/authorization_granted_scope_active");
  }

  @Test
  void tombstonesAreScopedPerWorkspace() {
    String id = authorization();
    String mine = h.apiKey();
    h.useApiKey(h.newWorkspace("ws_other", "pro"));
    assertThat(tombstone("doc/1", null).status()).isEqualTo(201);
    assertThat(listed("")).containsExactly("doc/1");

    h.useApiKey(mine);
    assertThat(listed("")).isEmpty();
    assertThat(decision(check(id, "doc/1"))).isEqualTo("allow/authorization_granted_scope_active");
  }

  @Test
  void tombstonesProduceNoReceipt() {
    assertThat(tombstone("doc/1", "x").status()).isEqualTo(201);
    assertThat(tombstone("doc/1", "x").status()).isEqualTo(200);
    assertThat(h.get("/v1/receipts").body().path("receipts")).isEmpty();
  }

  @Test
  void invalidTombstonesReturn400() {
    assertInvalid(h.post(TOMBSTONES, h.json("{}")), "resource");
    assertInvalid(h.post(TOMBSTONES, h.json("{\"resource\":null}")), "resource");
    assertInvalid(h.post(TOMBSTONES, h.json("{\"resource\":\"\"}")), "resource");
    assertInvalid(
        h.post(TOMBSTONES, h.json("{\"resource\":\"" + "r".repeat(257) + "\"}")), "resource");
    assertInvalid(h.post(TOMBSTONES, h.json("{\"resource\":\"a\\tb\"}")), "resource");
    assertInvalid(h.post(TOMBSTONES, h.json("{\"resource\":5}")), "resource");
    assertInvalid(
        h.post(TOMBSTONES, h.json("{\"resource\":\"r\",\"reason\":\"" + "x".repeat(2001) + "\"}")),
        "reason");
    assertInvalid(h.post(TOMBSTONES, h.json("{\"resource\":\"r\",\"note\":\"x\"}")), "note");
    assertInvalid(h.post(TOMBSTONES, ""), "body");

    assertThat(listed("")).isEmpty();
    assertThat(tombstone("r".repeat(256), "x".repeat(2000)).status()).isEqualTo(201);
  }
}
