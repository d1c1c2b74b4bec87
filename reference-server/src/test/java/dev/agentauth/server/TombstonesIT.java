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

/**
 * Tombstones: permanent blocks on exact resource strings (decisions §8), and on every resource a
 * pattern matches (issue 25 item 11).
 */
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
                {"resource":"doc/1","resource_pattern":null,"reason":"legal hold",
                 "created_at":"2026-11-22T10:00:00.000Z"}"""));
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

  private Resp tombstonePattern(String pattern, String reason) {
    ObjectNode body = h.json("{}").put("resource_pattern", pattern);
    if (reason != null) {
      body.put("reason", reason);
    }
    return h.post(TOMBSTONES, body);
  }

  /** The evasions of issue 25: each differs from "db/prod" as a string, not as a resource. */
  private static final List<String> EVASIONS =
      List.of("db/prod ", "db/prod/", "db/./prod", "db/PROD", "db/prod\u200b");

  @Test
  void patternTombstoneReturns201WithThePatternAndNoResource() {
    Resp r = tombstonePattern("db/prod*", "production");

    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    assertThat(r.body())
        .isEqualTo(
            h.json(
                """
                {"resource":null,"resource_pattern":"db/prod*","reason":"production",
                 "created_at":"2026-11-22T10:00:00.000Z"}"""));
    h.clock.advance(Duration.ofHours(1));
    Resp again = tombstonePattern("db/prod*", "other");
    assertThat(again.status()).as(again.raw()).isEqualTo(200);
    assertThat(again.raw()).isEqualTo(r.raw());
  }

  @Test
  void exactTombstonesStayExactStringsByDesign() {
    // The server compares resource strings as given (docs/server.md, "Normalise resources"): an
    // exact tombstone on db/prod does not block strings that a resource system might read as the
    // same resource. This is what the docs tell integrators to normalise away.
    String id = authorization();
    assertThat(tombstone("db/prod", null).status()).isEqualTo(201);

    assertThat(decision(check(id, "db/prod"))).isEqualTo("deny/resource_tombstoned");
    for (String evasion : EVASIONS) {
      assertThat(decision(check(id, evasion)))
          .as("\"%s\"", evasion)
          .isEqualTo("allow/authorization_granted_scope_active");
    }
  }

  @Test
  void aPrefixPatternCatchesTheSuffixEvasions() {
    String id = authorization();
    assertThat(tombstonePattern("db/prod*", null).status()).isEqualTo(201);

    for (String blocked :
        List.of("db/prod", "db/prod ", "db/prod/", "db/prod\u200b", "db/prod/x")) {
      assertThat(decision(check(id, blocked)))
          .as("\"%s\"", blocked)
          .isEqualTo("deny/resource_tombstoned");
    }
    // Case and path segments are the resource system's business: a glob is case-sensitive and
    // does not resolve "./"; these two need the normalisation the docs describe.
    for (String passes : List.of("db/./prod", "db/PROD", "db/other")) {
      assertThat(decision(check(id, passes)))
          .as("\"%s\"", passes)
          .isEqualTo("allow/authorization_granted_scope_active");
    }
    assertThat(decision(check(id, null))).isEqualTo("allow/authorization_granted_scope_active");
  }

  @Test
  void normalisingBeforeCheckingAndPatternsTogetherCatchEveryEvasion() {
    // The recipe of docs/server.md: canonicalise the identifier (trim, NFC, drop invisible
    // format characters, resolve "." segments and trailing slashes, lower-case for a
    // case-insensitive resource system) before both tombstoning and checking.
    String id = authorization();
    assertThat(tombstone(normalise("db/prod"), null).status()).isEqualTo(201);

    for (String evasion : EVASIONS) {
      assertThat(decision(check(id, normalise(evasion))))
          .as("\"%s\" normalised to \"%s\"", evasion, normalise(evasion))
          .isEqualTo("deny/resource_tombstoned");
    }
    assertThat(decision(check(id, normalise("db/production"))))
        .isEqualTo("allow/authorization_granted_scope_active");
  }

  /** The normalisation docs/server.md describes, for a case-insensitive, path-like resource. */
  private static String normalise(String resource) {
    String s = java.text.Normalizer.normalize(resource, java.text.Normalizer.Form.NFC);
    s = s.replaceAll("\\p{Cf}", "").strip().toLowerCase(java.util.Locale.ROOT);
    List<String> segments = new ArrayList<>();
    for (String segment : s.split("/")) {
      if (!segment.isEmpty() && !segment.equals(".")) {
        segments.add(segment);
      }
    }
    return String.join("/", segments);
  }

  @Test
  void patternsUseTheResourcePatternMatcher() {
    String id = authorization();
    assertThat(tombstonePattern("mail/[!0-9]?x", null).status()).isEqualTo(201);

    assertThat(decision(check(id, "mail/abx"))).isEqualTo("deny/resource_tombstoned");
    assertThat(decision(check(id, "mail/1bx")))
        .isEqualTo("allow/authorization_granted_scope_active");
    assertThat(decision(check(id, "mail/abxy")))
        .isEqualTo("allow/authorization_granted_scope_active");
    // the pattern is not an exact tombstone of its own text
    assertThat(decision(check(id, "mail/[!0-9]?x")))
        .isEqualTo("allow/authorization_granted_scope_active");
  }

  @Test
  void aPatternTombstoneAppliesToTheNextCheckOnAWarmServer() {
    String id = authorization();
    assertThat(tombstonePattern("other/*", null).status()).isEqualTo(201);
    for (int i = 0; i < 3; i++) {
      assertThat(decision(check(id, "db/prod/" + i)))
          .isEqualTo("allow/authorization_granted_scope_active");
    }

    assertThat(tombstonePattern("db/*", null).status()).isEqualTo(201);

    assertThat(decision(check(id, "db/prod/0"))).isEqualTo("deny/resource_tombstoned");
    assertThat(decision(check(id, "other/x"))).isEqualTo("deny/resource_tombstoned");
  }

  @Test
  void aCheckOfManyScopesAgainstAPatternIsDeniedForEachWithItsReceipt() {
    Resp a =
        h.post(
            "/v1/authorizations",
            h.json(
                """
                {"user_id":"u1","agent_id":"a1","scopes":[{"name":"s.a"},{"name":"s.b"}],
                 "expires_at":"2026-11-23T10:00:00Z"}"""));
    String id = a.body().path("authorization_id").asText();
    assertThat(tombstonePattern("db/*", null).status()).isEqualTo(201);

    Resp r =
        h.post(
            "/v1/check",
            h.json("{\"scopes\":[\"s.a\",\"s.b\",\"s.c\"],\"resource\":\"db/x\"}")
                .put("authorization_id", id));
    assertThat(r.body().at("/results/s.a/reason").asText()).isEqualTo("resource_tombstoned");
    assertThat(r.body().at("/results/s.b/reason").asText()).isEqualTo("resource_tombstoned");
    assertThat(r.body().at("/results/s.c/reason").asText()).isEqualTo("scope_not_authorized");
    assertThat(h.verifyChain(id)).isEqualTo(4);
  }

  @Test
  void patternTombstonesAreScopedPerWorkspace() {
    String id = authorization();
    String mine = h.apiKey();
    h.useApiKey(h.newWorkspace("ws_other", "pro"));
    assertThat(tombstonePattern("*", null).status()).isEqualTo(201);

    h.useApiKey(mine);
    assertThat(decision(check(id, "anything")))
        .isEqualTo("allow/authorization_granted_scope_active");
    assertThat(listed("")).isEmpty();
  }

  @Test
  void listShowsExactTombstonesThenPatternsAcrossPages() {
    for (String r : List.of("b", "a")) {
      assertThat(tombstone(r, null).status()).isEqualTo(201);
    }
    for (String p : List.of("z*", "y*", "x*")) {
      assertThat(tombstonePattern(p, null).status()).isEqualTo(201);
    }
    for (int limit = 1; limit <= 6; limit++) {
      List<String> seen = new ArrayList<>();
      String cursor = null;
      do {
        Resp r =
            h.get(TOMBSTONES + "?limit=" + limit + (cursor == null ? "" : "&cursor=" + cursor));
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        assertThat(r.body().path("tombstones").size()).isLessThanOrEqualTo(limit);
        r.body()
            .path("tombstones")
            .forEach(
                t ->
                    seen.add(
                        t.path("resource").isNull()
                            ? "pattern:" + t.path("resource_pattern").asText()
                            : t.path("resource").asText()));
        cursor =
            r.body().path("has_more").asBoolean() ? r.body().path("next_cursor").asText() : null;
      } while (cursor != null);
      assertThat(seen)
          .as("limit %d", limit)
          .containsExactly("a", "b", "pattern:x*", "pattern:y*", "pattern:z*");
    }
  }

  @Test
  void invalidPatternTombstonesReturn400NamingTheField() {
    assertInvalid(
        h.post(TOMBSTONES, h.json("{\"resource\":\"a\",\"resource_pattern\":\"a*\"}")),
        "resource_pattern");
    assertInvalid(h.post(TOMBSTONES, h.json("{\"reason\":\"x\"}")), "resource");
    assertInvalid(h.post(TOMBSTONES, h.json("{\"resource_pattern\":\"\"}")), "resource_pattern");
    assertInvalid(
        h.post(TOMBSTONES, h.json("{\"resource_pattern\":\"" + "*".repeat(257) + "\"}")),
        "resource_pattern");
    assertInvalid(
        h.post(TOMBSTONES, h.json("{\"resource_pattern\":\"a\\u0000*\"}")), "resource_pattern");
    assertInvalid(h.post(TOMBSTONES, h.json("{\"resource_pattern\":7}")), "resource_pattern");
    // Found by HttpFuzzIT (seed 1716): a NUL in a free-text field was a 500 on PostgreSQL.
    assertInvalid(
        h.post(TOMBSTONES, h.json("{\"resource\":\"res/36\",\"reason\":\"go\\u0000ne\"}")),
        "reason");

    assertThat(listed("")).isEmpty();
    assertThat(tombstonePattern("*".repeat(256), null).status()).isEqualTo(201);
  }

  @Test
  void aWorkspaceHoldsAtMost100PatternTombstones() {
    for (int i = 0; i < 100; i++) {
      assertThat(tombstonePattern("p" + i + "/*", null).status()).isEqualTo(201);
    }

    assertInvalid(tombstonePattern("p100/*", null), "resource_pattern");
    // the existing ones are still answered, and exact tombstones are not capped
    assertThat(tombstonePattern("p7/*", null).status()).isEqualTo(200);
    assertThat(tombstone("p100/x", null).status()).isEqualTo(201);
    // another workspace has its own allowance
    h.useApiKey(h.newWorkspace("ws_other", "pro"));
    assertThat(tombstonePattern("p100/*", null).status()).isEqualTo(201);
  }

  @Test
  void aCheckAgainstTheMostPatternsStaysFast() {
    // The matcher's worst case, 100 times: each pattern matches 250 characters of the resource
    // from every start before it fails, pattern × resource steps per pattern (6.4 million in
    // all, never exponential), so a check stays within milliseconds.
    String id = authorization();
    for (int i = 0; i < 100; i++) {
      String pattern = "*" + "a".repeat(250) + "b" + i;
      assertThat(tombstonePattern(pattern, null).status()).as(pattern).isEqualTo(201);
    }
    String resource = "a".repeat(256);
    check(id, resource); // warm up
    long worst = 0;
    for (int i = 0; i < 20; i++) {
      long start = System.nanoTime();
      Resp r = check(id, resource);
      worst = Math.max(worst, System.nanoTime() - start);
      assertThat(decision(r)).isEqualTo("allow/authorization_granted_scope_active");
    }
    assertThat(Duration.ofNanos(worst)).isLessThan(Duration.ofMillis(250));
  }
}
