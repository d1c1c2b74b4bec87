package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.ServerHarness.Resp;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Input an agent or a careless client can send that once made the server answer 500, freeze or run
 * out of memory (issue 14): unpaired surrogates, a backtracking pattern, a hostile {@code context}.
 * Each is a quick 400, or a quick decision, and nothing of it is stored or signed.
 */
class HostileInputIT {
  private static final String LONE = "\\ud800";

  private ServerHarness h;
  private String authorizationId;

  @BeforeEach
  void start() {
    h = ServerHarness.start();
    authorizationId =
        CheckFixtures.authorize(
            h,
            """
            {"scopes":[{"name":"mail.send","constraints":{"resource_pattern":"mailbox/alice"}},
                       {"name":"crm.read"}]}""");
  }

  @AfterEach
  void stop() {
    h.close();
  }

  private int receipts() {
    return h.get("/v1/receipts?limit=100").body().path("receipts").size();
  }

  /**
   * Method, path, raw JSON body with an unpaired surrogate, and the field the 400 must name. The
   * path's {@code AUTH} is replaced by a real authorization id.
   */
  static List<Arguments> unpaired() {
    String check = "{\"authorization_id\":\"AUTH\",\"scopes\":[\"crm.read\"],%s}";
    String create =
        "{\"user_id\":\"u\",\"agent_id\":\"a\",\"expires_at\":\"2026-11-29T10:00:00Z\","
            + "\"scopes\":[{\"name\":\"crm.read\"}],%s}";
    return List.of(
        // Issue 17's example, reported as a 500.
        Arguments.of(
            "POST",
            "/v1/check",
            "{\"authorization_id\":\"" + LONE + "\",\"scopes\":[\"a\"]}",
            "authorization_id"),
        Arguments.of(
            "POST",
            "/v1/check",
            "{\"authorization_id\":\"auth_" + LONE + "\",\"scopes\":[\"crm.read\"]}",
            "authorization_id"),
        Arguments.of(
            "POST",
            "/v1/check",
            check.formatted("\"resource\":\"mailbox/bob" + LONE + "\""),
            "resource"),
        Arguments.of(
            "POST", "/v1/check", check.formatted("\"session_id\":\"s" + LONE + "\""), "session_id"),
        Arguments.of(
            "POST",
            "/v1/check",
            check.formatted("\"context\":{\"initiated_by\":\"" + LONE + "\"}"),
            "context.initiated_by"),
        Arguments.of(
            "POST",
            "/v1/check",
            check.formatted("\"context\":{\"tags\":[\"ok\",\"\\udc00x\"]}"),
            "context.tags[1]"),
        Arguments.of("POST", "/v1/check", check.formatted("\"context\":{\"k\\udc00\":1}"), "body"),
        // Jackson itself refuses unpaired surrogates in member names, as invalid JSON.
        Arguments.of(
            "POST", "/v1/check", check.formatted("\"context\":{\"k" + LONE + "\":1}"), "body"),
        Arguments.of(
            "POST",
            "/v1/check",
            "{\"authorization_id\":\"AUTH\",\"scopes\":[\"crm" + LONE + "\"]}",
            "scopes[0]"),
        Arguments.of(
            "POST",
            "/v1/authorizations",
            create.formatted("\"metadata\":{\"m\":\"" + LONE + "\"}"),
            "metadata.m"),
        Arguments.of(
            "POST",
            "/v1/authorizations",
            "{\"user_id\":\"u"
                + LONE
                + "\",\"agent_id\":\"a\","
                + "\"expires_at\":\"2026-11-29T10:00:00Z\",\"scopes\":[{\"name\":\"crm.read\"}]}",
            "user_id"),
        Arguments.of(
            "POST",
            "/v1/authorizations",
            "{\"user_id\":\"u\",\"agent_id\":\"a\",\"expires_at\":\"2026-11-29T10:00:00Z\","
                + "\"scopes\":[{\"name\":\"crm.read\",\"constraints\":{\"resource_pattern\":\"x"
                + LONE
                + "\"}}]}",
            "scopes[0].constraints.resource_pattern"),
        Arguments.of(
            "DELETE",
            "/v1/authorizations/AUTH",
            "{\"revoked_by\":\"admin" + LONE + "\"}",
            "revoked_by"),
        Arguments.of(
            "POST",
            "/v1/tombstones",
            "{\"resource\":\"r" + LONE + "\",\"reason\":\"x\"}",
            "resource"));
  }

  @ParameterizedTest(name = "{0} {1} names {3}")
  @MethodSource("unpaired")
  void anUnpairedSurrogateInAnyStringIs400NamingTheFieldAndStoresNothing(
      String method, String path, String body, String field) {
    int before = receipts();

    Resp r =
        h.send(
            method,
            path.replace("AUTH", authorizationId),
            body.replace("AUTH", authorizationId),
            h.apiKey(),
            Map.of());

    assertThat(r.status()).as(r.raw()).isEqualTo(400);
    assertThat(r.header("Content-Type")).startsWith("application/problem+json");
    assertThat(r.code()).isEqualTo("invalid_request");
    assertThat(r.fields()).as(r.raw()).containsExactly(field);
    assertThat(receipts()).isEqualTo(before);
    assertThat(h.get("/v1/authorizations/" + authorizationId).body().path("status").asText())
        .isEqualTo("active");
  }

  @Test
  void aParserMessageQuotingHalfASurrogatePairShowsAReplacementCharacter() {
    // ED B0 80 is a lone low surrogate in CESU-8: not UTF-8, yet Jackson reads it as U+DC00 and
    // quotes it in its message, which the 400 used to repeat.
    byte[] body =
        "{\"authorization_id\":\"a\",\u00ed\u00b0\u0080\"scopes\":[]}"
            .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);

    Resp r = h.send("POST", "/v1/check", body, h.apiKey(), Map.of());

    assertThat(r.status()).as(r.raw()).isEqualTo(400);
    assertThat(r.code()).isEqualTo("invalid_request");
    assertThat(r.body().path("detail").asText()).contains("\ufffd");
    assertThat(r.body().toString().codePoints()).noneMatch(c -> c >= 0xd800 && c <= 0xdfff);
  }

  @Test
  void aResourceWithAnUnpairedSurrogateNeverReachesTheDecision() {
    // The attack of issue 14: a 500 here made a fail-open SDK allow the action.
    Resp r =
        h.post(
            "/v1/check",
            "{\"authorization_id\":\"%s\",\"scopes\":[\"mail.send\"],\"resource\":\"mailbox/bob%s\"}"
                .formatted(authorizationId, LONE));
    assertThat(r.status()).as(r.raw()).isEqualTo(400);

    Resp fine =
        h.post(
            "/v1/check",
            "{\"authorization_id\":\"%s\",\"scopes\":[\"mail.send\"],\"resource\":\"mailbox/bob\\ud83d\\ude00\"}"
                .formatted(authorizationId));
    assertThat(fine.status()).as(fine.raw()).isEqualTo(200);
    assertThat(fine.body().path("results").path("mail.send").path("reason").asText())
        .isEqualTo("scope_not_authorized");
  }

  @Test
  void aBacktrackingPatternIsDecidedQuicklyAndOthersAreNotHeldUp() throws Exception {
    String pattern = "*a".repeat(40) + "b";
    String slow =
        CheckFixtures.authorize(
            h,
            "{\"scopes\":[{\"name\":\"files.read\",\"constraints\":{\"resource_pattern\":\""
                + pattern
                + "\"}}]}");
    CompletableFuture<Resp> attack =
        CompletableFuture.supplyAsync(
            () ->
                h.post(
                    "/v1/check",
                    "{\"authorization_id\":\"%s\",\"scopes\":[\"files.read\"],\"resource\":\"%s\"}"
                        .formatted(slow, "a".repeat(256))));
    Resp other =
        h.post(
            "/v1/check",
            "{\"authorization_id\":\"%s\",\"scopes\":[\"crm.read\"]}".formatted(authorizationId));

    assertThat(other.status()).isEqualTo(200);
    Resp r = attack.get(10, TimeUnit.SECONDS);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    assertThat(r.body().path("results").path("files.read").path("reason").asText())
        .isEqualTo("scope_not_authorized");
  }

  @Test
  void aMebibyteOfNestedLongKeysIsOneQuick400() throws Exception {
    StringBuilder context = new StringBuilder();
    int levels = 14;
    for (int i = 0; i < levels; i++) {
      context.append('"').append(String.valueOf((char) ('a' + i)).repeat(49_000)).append("\":{");
    }
    for (int i = 0; i < 20_000; i++) {
      context.append(i == 0 ? "" : ",").append("\"").append(i).append("\":1.5");
    }
    context.append("}".repeat(levels));
    String body =
        "{\"authorization_id\":\"%s\",\"scopes\":[\"crm.read\"],\"context\":{%s}}"
            .formatted(authorizationId, context);
    assertThat(body.length()).isBetween(900_000, 1024 * 1024);

    CompletableFuture<Resp> sent = CompletableFuture.supplyAsync(() -> h.post("/v1/check", body));
    Resp r = sent.get(10, TimeUnit.SECONDS);

    assertThat(r.status()).as(r.raw()).isEqualTo(400);
    assertThat(r.fields()).containsExactly("context");
    assertThat(r.raw().length()).isLessThan(2_000);
  }

  @Test
  void aNulInAQueryParameterOrPathIdIs400NamingIt() {
    ServerHarness.Resp query = h.get("/v1/receipts?scope=%00");
    assertThat(query.status()).isEqualTo(400);
    assertThat(query.code()).isEqualTo("invalid_request");
    assertThat(query.fields()).containsExactly("scope");
    ServerHarness.Resp path = h.get("/v1/receipts/a%00b");
    assertThat(path.status()).isIn(400);
    assertThat(path.header("Content-Type")).startsWith("application/problem+json");
  }
}
