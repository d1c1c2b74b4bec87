package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.server.ServerHarness.Resp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code POST/GET/DELETE /v1/authorizations}: creation in both shapes, every input rule, PII and
 * plan checks, status, listing and revocation (service spec "Authorization", decisions §2–§3).
 */
class AuthorizationsIT {
  private static final String EXPIRES = "2026-11-23T10:00:00Z";

  /**
   * Parameterized tests only send requests that must be rejected (and so change nothing): they
   * share this server. Every other test gets a fresh one.
   */
  private static ServerHarness shared;

  private ServerHarness h;

  @BeforeAll
  static void startShared() {
    shared = ServerHarness.start();
  }

  @AfterAll
  static void stopShared() {
    shared.close();
  }

  @BeforeEach
  void start(TestInfo test) {
    boolean rejectsOnly =
        test.getTestMethod().map(m -> m.isAnnotationPresent(ParameterizedTest.class)).orElse(false);
    h = rejectsOnly ? shared : ServerHarness.start();
  }

  @AfterEach
  void stop() {
    if (h != shared) {
      h.close();
    }
  }

  // ---- helpers

  private Resp create(String json) {
    return h.post("/v1/authorizations", h.json(json));
  }

  private Resp create(ObjectNode body) {
    return h.post("/v1/authorizations", body);
  }

  /** A valid inline request that tests then break one field at a time. */
  private ObjectNode inline() {
    return h.json(
        """
        {"user_id":"u1","agent_id":"a1","scopes":[{"name":"email.send"},{"name":"files.read"}],
         "expires_at":"%s"}"""
            .formatted(EXPIRES));
  }

  private String createId(String json) {
    Resp r = create(json);
    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    return r.body().path("authorization_id").asText();
  }

  private String simple(String userId, String agentId) {
    return createId(
        """
        {"user_id":"%s","agent_id":"%s","scopes":[{"name":"email.send"}],"expires_at":"%s"}"""
            .formatted(userId, agentId, EXPIRES));
  }

  private Resp bundle(String json) {
    Resp r = h.post("/v1/agent-scope-bundles", h.json(json));
    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    return r;
  }

  private static void assertInvalid(Resp r, String field) {
    assertThat(r.status()).as(r.raw()).isEqualTo(400);
    assertThat(r.code()).as(r.raw()).isEqualTo("invalid_request");
    assertThat(r.fields()).as(r.raw()).contains(field);
  }

  private void assertNothingStored() {
    Resp list = h.get("/v1/authorizations");
    assertThat(list.body().path("authorizations")).as(list.raw()).isEmpty();
    Resp receipts = h.get("/v1/receipts");
    assertThat(receipts.body().path("receipts")).as(receipts.raw()).isEmpty();
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  // ---- creation, inline shape

  @Test
  void createInlineReturns201WithEveryFieldAndDefaults() {
    Resp r =
        create(
            """
            {"user_id":"emp_8821","agent_id":"agent-7",
             "scopes":[{"name":"email.send"},
                       {"name":"files.read","constraints":{"max_per_day":5}}],
             "expires_at":"2026-11-23T12:00:00+02:00"}""");

    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    assertThat(r.header("Content-Type")).startsWith("application/json");
    JsonNode b = r.body();
    assertThat(b.path("authorization_id").asText()).isNotBlank();
    assertThat(b.path("user_id").asText()).isEqualTo("emp_8821");
    assertThat(b.path("agent_id").asText()).isEqualTo("agent-7");
    assertThat(b.get("bundle_id").isNull()).isTrue();
    assertThat(b.path("scopes"))
        .isEqualTo(
            h.json(
                    """
                    {"s":[{"name":"email.send"},
                          {"name":"files.read","constraints":{"max_per_day":5}}]}""")
                .get("s"));
    assertThat(b.path("scopes").get(0).has("constraints")).isFalse();
    assertThat(b.path("requires_confirm_for").isArray()).isTrue();
    assertThat(b.path("requires_confirm_for")).isEmpty();
    assertThat(b.path("requires_escalation_for").isArray()).isTrue();
    assertThat(b.path("requires_escalation_for")).isEmpty();
    assertThat(b.path("escalation_targets").isObject()).isTrue();
    assertThat(b.path("escalation_targets")).isEmpty();
    assertThat(b.path("metadata").isObject()).isTrue();
    assertThat(b.path("metadata")).isEmpty();
    assertThat(b.path("expires_at").asText()).isEqualTo("2026-11-23T10:00:00.000Z");
    assertThat(b.get("budget_limit_micros").isNull()).isTrue();
    assertThat(b.path("budget_spent_micros").isIntegralNumber()).isTrue();
    assertThat(b.path("budget_spent_micros").asLong()).isZero();
    assertThat(b.path("created_at").asText()).isEqualTo("2026-11-22T10:00:00.000Z");
    assertThat(b.get("revoked_at").isNull()).isTrue();
    assertThat(b.path("status").asText()).isEqualTo("active");

    JsonNode receipt = b.path("receipt");
    assertThat(receipt.path("status").asText()).isEqualTo("pending");
    String receiptId = receipt.path("receipt_id").asText();
    assertThat(receiptId).matches("[0-9A-HJKMNP-TV-Z]{26}");
    assertThat(receipt.path("ready_at_estimate").asText())
        .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
    assertThat(receipt.path("url").asText())
        .isEqualTo(h.server.baseUrl() + "/v1/receipts/" + receiptId);
  }

  @Test
  void createKeepsOptionalFieldsAsSent() {
    Resp r =
        create(
            """
            {"user_id":"u1","agent_id":"a1",
             "scopes":[{"name":"email.send","constraints":{"resource_pattern":"mailbox/*",
                        "allowed_initiators":["user"]}},
                       {"name":"payments:charge"},{"name":"deploy/prod"}],
             "requires_confirm_for":["email.send"],
             "requires_escalation_for":["payments:charge"],
             "escalation_targets":{"payments:charge":"finance"},
             "budget_limit_micros":5000000,
             "metadata":{"ticket":"T-1","nested":{"n":[1,2,true,null,"x"]}},
             "expires_at":"%s"}"""
                .formatted(EXPIRES));

    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    JsonNode b = r.body();
    assertThat(b.at("/scopes/0/constraints"))
        .isEqualTo(
            h.json("{\"resource_pattern\":\"mailbox/*\",\"allowed_initiators\":[\"user\"]}"));
    assertThat(texts(b.path("requires_confirm_for"))).containsExactly("email.send");
    assertThat(texts(b.path("requires_escalation_for"))).containsExactly("payments:charge");
    assertThat(b.at("/escalation_targets/payments:charge").asText()).isEqualTo("finance");
    assertThat(b.path("budget_limit_micros").asLong()).isEqualTo(5_000_000L);
    assertThat(b.path("budget_spent_micros").asLong()).isZero();
    assertThat(b.path("metadata"))
        .isEqualTo(h.json("{\"ticket\":\"T-1\",\"nested\":{\"n\":[1,2,true,null,\"x\"]}}"));
  }

  @Test
  void createReceiptVerifiesAndPinsTheRuleSet() {
    Resp r =
        create(
            """
            {"user_id":"u1","agent_id":"a1","scopes":[{"name":"email.send"}],
             "requires_confirm_for":["email.send"],"metadata":{"k":"v"},"expires_at":"%s"}"""
                .formatted(EXPIRES));
    String id = r.body().path("authorization_id").asText();

    JsonNode receipt = h.signedReceipt(r.body().at("/receipt/receipt_id").asText());
    assertThat(receipt.path("event").asText()).isEqualTo("authorization.create");
    assertThat(receipt.path("decision").asText()).isEqualTo("authorization_granted");
    assertThat(receipt.path("reason").asText()).isEqualTo("authorization_created");
    assertThat(receipt.has("scope")).isFalse();
    assertThat(receipt.get("resource").isNull()).isTrue();
    assertThat(receipt.path("authorization_id").asText()).isEqualTo(id);
    assertThat(receipt.path("user_id").asText()).isEqualTo("u1");
    assertThat(receipt.path("agent_id").asText()).isEqualTo("a1");
    assertThat(receipt.path("issued_at").asText()).isEqualTo("2026-11-22T10:00:00.000Z");
    JsonNode ctx = receipt.path("context");
    assertThat(ctx.path("metadata")).isEqualTo(h.json("{\"k\":\"v\"}"));
    assertThat(ctx.path("scopes")).isEqualTo(r.body().path("scopes"));
    assertThat(ctx.path("expires_at").asText()).isEqualTo("2026-11-23T10:00:00.000Z");
    assertThat(texts(ctx.path("requires_confirm_for"))).containsExactly("email.send");
    assertThat(ctx.path("requires_escalation_for")).isEmpty();
    assertThat(ctx.path("escalation_targets")).isEmpty();
    assertThat(ctx.get("budget_limit_micros").isNull()).isTrue();
    assertThat(ctx.get("bundle_id").isNull()).isTrue();
    assertThat(h.verifyChain(id)).isEqualTo(1);
  }

  // ---- creation from a bundle

  @Test
  void createFromBundleTakesAgentAndScopesFromTheBundle() {
    bundle(
        """
        {"id":"support","agent_id":"support-bot",
         "scopes":[{"name":"tickets.read"},{"name":"tickets.reply","constraints":{"max_per_day":3}}],
         "requires_confirm_for":["tickets.reply"],"default_expiry_days":7}""");

    Resp r =
        create(
            """
            {"user_id":"u1","bundle_id":"support","metadata":{"from":"bundle"},
             "budget_limit_micros":1000}""");

    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    JsonNode b = r.body();
    assertThat(b.path("bundle_id").asText()).isEqualTo("support");
    assertThat(b.path("agent_id").asText()).isEqualTo("support-bot");
    assertThat(b.path("scopes"))
        .isEqualTo(
            h.json(
                    """
                    {"s":[{"name":"tickets.read"},
                          {"name":"tickets.reply","constraints":{"max_per_day":3}}]}""")
                .get("s"));
    assertThat(texts(b.path("requires_confirm_for"))).containsExactly("tickets.reply");
    assertThat(b.path("metadata")).isEqualTo(h.json("{\"from\":\"bundle\"}"));
    assertThat(b.path("budget_limit_micros").asLong()).isEqualTo(1000);
    Instant created = Instant.parse(b.path("created_at").asText());
    assertThat(Instant.parse(b.path("expires_at").asText()))
        .isEqualTo(created.plus(Duration.ofDays(7)));
    assertThat(h.verifyChain(b.path("authorization_id").asText())).isEqualTo(1);
  }

  @Test
  void createFromBundleUsesExplicitExpiresAtOverTheDefault() {
    bundle(
        """
        {"id":"b1","agent_id":"bot","scopes":[{"name":"x"}],"default_expiry_days":30}""");
    Resp r = create("{\"user_id\":\"u1\",\"bundle_id\":\"b1\",\"expires_at\":\"" + EXPIRES + "\"}");
    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    assertThat(r.body().path("expires_at").asText()).isEqualTo("2026-11-23T10:00:00.000Z");
  }

  @Test
  void createFromBundleWithoutDefaultExpiryRequiresExpiresAt() {
    bundle("{\"id\":\"b1\",\"agent_id\":\"bot\",\"scopes\":[{\"name\":\"x\"}]}");
    assertInvalid(create("{\"user_id\":\"u1\",\"bundle_id\":\"b1\"}"), "expires_at");
  }

  @Test
  void createFromBundleOverridesRequirementsWhenTheyNameBundleScopes() {
    bundle(
        """
        {"id":"b1","agent_id":"bot","scopes":[{"name":"a"},{"name":"b"}],
         "requires_confirm_for":["a"],"escalation_targets":{"a":"manager"},
         "default_expiry_days":1}""");

    Resp r =
        create(
            """
            {"user_id":"u1","bundle_id":"b1","requires_confirm_for":["b"],
             "requires_escalation_for":["a"],"escalation_targets":{"a":"security"}}""");

    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    assertThat(texts(r.body().path("requires_confirm_for"))).containsExactly("b");
    assertThat(texts(r.body().path("requires_escalation_for"))).containsExactly("a");
    assertThat(r.body().at("/escalation_targets/a").asText()).isEqualTo("security");
  }

  @Test
  void createFromBundleRejectsOverridesNamingOtherScopes() {
    bundle(
        """
        {"id":"b1","agent_id":"bot","scopes":[{"name":"a"}],"default_expiry_days":1}""");

    assertInvalid(
        create("{\"user_id\":\"u1\",\"bundle_id\":\"b1\",\"requires_confirm_for\":[\"zzz\"]}"),
        "requires_confirm_for[0]");
    assertInvalid(
        create("{\"user_id\":\"u1\",\"bundle_id\":\"b1\",\"requires_escalation_for\":[\"zzz\"]}"),
        "requires_escalation_for[0]");
    assertInvalid(
        create(
            "{\"user_id\":\"u1\",\"bundle_id\":\"b1\",\"escalation_targets\":{\"zzz\":\"boss\"}}"),
        "escalation_targets.zzz");
    assertNothingStored();
  }

  @Test
  void createFromUnknownBundleReturns400BundleNotFound() {
    Resp r =
        create("{\"user_id\":\"u1\",\"bundle_id\":\"nope\",\"expires_at\":\"" + EXPIRES + "\"}");
    assertThat(r.status()).as(r.raw()).isEqualTo(400);
    assertThat(r.code()).isEqualTo("bundle_not_found");
    assertThat(r.fields()).containsExactly("bundle_id");
    assertNothingStored();
  }

  @Test
  void createFromSoftDeletedBundleReturns400BundleNotFound() {
    bundle("{\"id\":\"b1\",\"agent_id\":\"bot\",\"scopes\":[{\"name\":\"a\"}]}");
    assertThat(h.delete("/v1/agent-scope-bundles/b1").status()).isEqualTo(200);

    Resp r = create("{\"user_id\":\"u1\",\"bundle_id\":\"b1\",\"expires_at\":\"" + EXPIRES + "\"}");

    assertThat(r.status()).as(r.raw()).isEqualTo(400);
    assertThat(r.code()).isEqualTo("bundle_not_found");
  }

  @Test
  void createFromAnotherWorkspacesBundleReturns400BundleNotFound() {
    bundle("{\"id\":\"b1\",\"agent_id\":\"bot\",\"scopes\":[{\"name\":\"a\"}]}");
    h.useApiKey(h.newWorkspace("ws_other", "pro"));
    Resp r = create("{\"user_id\":\"u1\",\"bundle_id\":\"b1\",\"expires_at\":\"" + EXPIRES + "\"}");
    assertThat(r.code()).as(r.raw()).isEqualTo("bundle_not_found");
  }

  @Test
  void mixingInlineAndBundleShapesReturns400() {
    bundle("{\"id\":\"b1\",\"agent_id\":\"bot\",\"scopes\":[{\"name\":\"a\"}]}");

    assertInvalid(
        create(
            "{\"user_id\":\"u1\",\"bundle_id\":\"b1\",\"agent_id\":\"bot\",\"expires_at\":\"%s\"}"
                .formatted(EXPIRES)),
        "agent_id");
    assertInvalid(
        create(
            "{\"user_id\":\"u1\",\"bundle_id\":\"b1\",\"scopes\":[{\"name\":\"a\"}],\"expires_at\":\"%s\"}"
                .formatted(EXPIRES)),
        "scopes");
    assertNothingStored();
  }

  // ---- input rules (decisions §2)

  static Stream<Arguments> invalidInlineRequests() {
    String longId = "u".repeat(257);
    String longScope = "s".repeat(201);
    StringBuilder deep = new StringBuilder();
    for (int i = 0; i < 17; i++) { // metadata itself is level 1: 17 objects nest too deep
      deep.append("{\"a\":");
    }
    deep.append("1");
    deep.append("}".repeat(17));
    return Stream.of(
        Arguments.of("missing user_id", "/user_id", null, "user_id"),
        Arguments.of("empty user_id", "/user_id", "\"\"", "user_id"),
        Arguments.of("user_id over 256 chars", "/user_id", "\"" + longId + "\"", "user_id"),
        Arguments.of("control char in user_id", "/user_id", "\"u\\u0001x\"", "user_id"),
        Arguments.of("DEL char in agent_id", "/agent_id", "\"a\\u007fx\"", "agent_id"),
        Arguments.of("newline in agent_id", "/agent_id", "\"a\\nb\"", "agent_id"),
        Arguments.of("missing agent_id", "/agent_id", null, "agent_id"),
        Arguments.of("agent_id over 256 chars", "/agent_id", "\"" + longId + "\"", "agent_id"),
        Arguments.of("missing scopes", "/scopes", null, "scopes"),
        Arguments.of("empty scopes", "/scopes", "[]", "scopes"),
        Arguments.of(
            "scope name with space", "/scopes", "[{\"name\":\"email send\"}]", "scopes[0].name"),
        Arguments.of("scope name with $", "/scopes", "[{\"name\":\"email$\"}]", "scopes[0].name"),
        Arguments.of("scope name non-ASCII", "/scopes", "[{\"name\":\"é\"}]", "scopes[0].name"),
        Arguments.of("empty scope name", "/scopes", "[{\"name\":\"\"}]", "scopes[0].name"),
        Arguments.of("missing scope name", "/scopes", "[{}]", "scopes[0].name"),
        Arguments.of(
            "scope name over 200 chars",
            "/scopes",
            "[{\"name\":\"" + longScope + "\"}]",
            "scopes[0].name"),
        Arguments.of("leading dot", "/scopes", "[{\"name\":\".email\"}]", "scopes[0].name"),
        Arguments.of("trailing dot", "/scopes", "[{\"name\":\"email.\"}]", "scopes[0].name"),
        Arguments.of(
            "duplicate scope names",
            "/scopes",
            "[{\"name\":\"a\"},{\"name\":\"a\"}]",
            "scopes[1].name"),
        Arguments.of("scope entry not an object", "/scopes", "[\"a\"]", "scopes[0]"),
        Arguments.of(
            "requires_confirm_for not a subset",
            "/requires_confirm_for",
            "[\"email.send\",\"nope\"]",
            "requires_confirm_for[1]"),
        Arguments.of(
            "requires_escalation_for not a subset",
            "/requires_escalation_for",
            "[\"nope\"]",
            "requires_escalation_for[0]"),
        Arguments.of(
            "escalation_targets naming another scope",
            "/escalation_targets",
            "{\"nope\":\"manager\"}",
            "escalation_targets.nope"),
        Arguments.of("missing expires_at", "/expires_at", null, "expires_at"),
        Arguments.of(
            "expires_at in the past", "/expires_at", "\"2026-11-22T09:59:59Z\"", "expires_at"),
        Arguments.of("expires_at now", "/expires_at", "\"2026-11-22T10:00:00Z\"", "expires_at"),
        Arguments.of(
            "expires_at over 366 days ahead",
            "/expires_at",
            "\"2027-11-23T10:00:00.001Z\"",
            "expires_at"),
        Arguments.of(
            "expires_at without offset", "/expires_at", "\"2026-11-23T10:00:00\"", "expires_at"),
        Arguments.of("expires_at not a date", "/expires_at", "\"tomorrow\"", "expires_at"),
        Arguments.of("negative budget", "/budget_limit_micros", "-1", "budget_limit_micros"),
        Arguments.of(
            "budget above 2^53-1",
            "/budget_limit_micros",
            "9007199254740992",
            "budget_limit_micros"),
        Arguments.of(
            "budget above a long",
            "/budget_limit_micros",
            "9223372036854775808",
            "budget_limit_micros"),
        Arguments.of("fractional budget", "/budget_limit_micros", "1.5", "budget_limit_micros"),
        Arguments.of(
            "max_per_day 0",
            "/scopes",
            "[{\"name\":\"a\",\"constraints\":{\"max_per_day\":0}}]",
            "scopes[0].constraints.max_per_day"),
        Arguments.of(
            "negative max_per_day",
            "/scopes",
            "[{\"name\":\"a\",\"constraints\":{\"max_per_day\":-3}}]",
            "scopes[0].constraints.max_per_day"),
        Arguments.of(
            "max_per_day above 2^53-1",
            "/scopes",
            "[{\"name\":\"a\",\"constraints\":{\"max_per_day\":9007199254740992}}]",
            "scopes[0].constraints.max_per_day"),
        Arguments.of(
            "resource_pattern over 256 chars",
            "/scopes",
            "[{\"name\":\"a\",\"constraints\":{\"resource_pattern\":\"" + longId + "\"}}]",
            "scopes[0].constraints.resource_pattern"),
        Arguments.of(
            "allowed_initiators with a number",
            "/scopes",
            "[{\"name\":\"a\",\"constraints\":{\"allowed_initiators\":[1]}}]",
            "scopes[0].constraints.allowed_initiators[0]"),
        Arguments.of(
            "metadata over 16 KiB",
            "/metadata",
            "{\"blob\":\"" + "x".repeat(16 * 1024) + "\"}",
            "metadata"),
        Arguments.of(
            "metadata deeper than 16", "/metadata", deep.toString(), "metadata" + ".a".repeat(16)),
        Arguments.of("float in metadata", "/metadata", "{\"x\":1.5}", "metadata.x"),
        Arguments.of("exponent in metadata", "/metadata", "{\"x\":1e3}", "metadata.x"),
        Arguments.of(
            "integer beyond 2^53-1 in metadata",
            "/metadata",
            "{\"x\":[9007199254740992]}",
            "metadata.x[0]"),
        Arguments.of("metadata not an object", "/metadata", "[1]", "metadata"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidInlineRequests")
  void invalidCreateReturns400NamingTheField(
      String rule, String pointer, String valueJson, String field) {
    ObjectNode body = inline();
    String name = pointer.substring(1);
    if (valueJson == null) {
      body.remove(name);
    } else {
      body.set(name, h.json("{\"v\":" + valueJson + "}").get("v"));
    }

    Resp r = create(body);

    assertInvalid(r, field);
    assertThat(r.body().path("errors").get(0).path("message").asText()).isNotBlank();
    assertNothingStored();
  }

  @Test
  void anExpiryOutsideTheWindowNamesTheServersTime() {
    // The harness's server runs on a test clock at 2026-11-22T10:00:00Z, not the caller's time.
    ObjectNode body = inline();
    body.put("expires_at", "2026-11-22T09:00:00Z");
    Resp past = create(body);
    assertInvalid(past, "expires_at");
    assertThat(past.body().at("/errors/0/message").asText())
        .isEqualTo("must be in the future (the server's time is 2026-11-22T10:00:00.000Z)");

    body.put("expires_at", "2027-11-24T10:00:00Z");
    Resp far = create(body);
    assertInvalid(far, "expires_at");
    assertThat(far.body().at("/errors/0/message").asText())
        .isEqualTo(
            "must be at most 366 days ahead of the server's time (2026-11-22T10:00:00.000Z)");
    assertNothingStored();
  }

  @Test
  void metadataAtTheLimitsIsAccepted() {
    ObjectNode body = inline();
    StringBuilder deep = new StringBuilder();
    for (int i = 0; i < 16; i++) { // metadata and 15 objects inside it: depth 16
      deep.append("{\"a\":");
    }
    deep.append("1").append("}".repeat(16));
    body.set("metadata", h.json(deep.toString()));
    assertThat(create(body).status()).isEqualTo(201);

    body.set(
        "metadata",
        h.json(
            "{\"max\":9007199254740991,\"min\":-9007199254740991,\"pad\":\""
                + "y".repeat(100)
                + "\"}"));
    assertThat(create(body).status()).isEqualTo(201);

    body.set("expires_at", h.json("{\"v\":\"2027-11-23T10:00:00Z\"}").get("v")); // exactly 366 days
    body.set("budget_limit_micros", h.json("{\"v\":9007199254740991}").get("v"));
    assertThat(create(body).status()).isEqualTo(201);
  }

  @Test
  void oneHundredScopesAreAcceptedAndOneHundredOneRejected() {
    ObjectNode body = inline();
    ArrayNode scopes = body.putArray("scopes");
    for (int i = 0; i < 100; i++) {
      scopes.addObject().put("name", "tool_" + i + ":run/x-y");
    }
    assertThat(create(body).status()).isEqualTo(201);

    scopes.addObject().put("name", "tool_100");
    assertInvalid(create(body), "scopes");
  }

  @Test
  void scopeNamesMayUseEveryAllowedCharacter() {
    ObjectNode body = inline();
    body.putArray("scopes")
        .add(h.json("{\"name\":\"" + "s".repeat(200) + "\"}"))
        .add(h.json("{\"name\":\"AZaz09._-:/x\"}"))
        .add(h.json("{\"name\":\"mcp:github/create_issue\"}"));
    assertThat(create(body).status()).isEqualTo(201);
  }

  @Test
  void severalInvalidFieldsAreReportedTogether() {
    Resp r =
        create(
            "{\"agent_id\":\"a1\",\"scopes\":[{\"name\":\".x\"}],\"expires_at\":\""
                + EXPIRES
                + "\"}");
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.fields()).contains("user_id", "scopes[0].name");
  }

  // ---- PII

  @ParameterizedTest
  @ValueSource(
      strings = {
        "alice@example.com",
        "first.last+tag@mail.example.co.uk",
        "+14155550123",
        "(415) 555-0123",
        "415.555.0123",
        "415-555-0123",
        "+44 20 7946 0958"
      })
  void rawEmailOrPhoneAsUserIdReturns400PiiNotAllowed(String value) {
    ObjectNode body = inline();
    body.put("user_id", value);

    Resp r = create(body);

    assertThat(r.status()).as(r.raw()).isEqualTo(400);
    assertThat(r.code()).isEqualTo("pii_not_allowed");
    assertThat(r.fields()).containsExactly("user_id");
    assertThat(r.raw()).doesNotContain(value);
    assertNothingStored();
  }

  @ParameterizedTest
  @ValueSource(strings = {"bot@example.com", "+14155550123", "(415) 555-0123", "415.555.0123"})
  void rawEmailOrPhoneAsAgentIdReturns400PiiNotAllowed(String value) {
    ObjectNode body = inline();
    body.put("agent_id", value);

    Resp r = create(body);

    assertThat(r.status()).as(r.raw()).isEqualTo(400);
    assertThat(r.code()).isEqualTo("pii_not_allowed");
    assertThat(r.fields()).containsExactly("agent_id");
  }

  @Test
  void opaqueIdentifiersAreNotTakenForPii() {
    for (String value :
        List.of(
            "emp_8821",
            "user-42",
            "usr_01HZX3",
            "a3f1c9e0b7d24e6f",
            "team@",
            "ext:555-01",
            "hmac-sha256:9f86d081884c7d65")) {
      ObjectNode body = inline();
      body.put("user_id", value);
      body.put("agent_id", value);
      Resp r = create(body);
      assertThat(r.status()).as(value + ": " + r.raw()).isEqualTo(201);
    }
  }

  // ---- plans

  @Test
  void proFieldsOnAFreeWorkspaceReturn402PlanRequired() {
    h.useApiKey(h.newWorkspace("ws_free", "free"));

    ObjectNode escalation = inline();
    escalation.putArray("requires_escalation_for").add("email.send");
    Resp r = create(escalation);
    assertThat(r.status()).as(r.raw()).isEqualTo(402);
    assertThat(r.code()).isEqualTo("plan_required");
    assertThat(r.fields()).containsExactly("requires_escalation_for");

    ObjectNode budget = inline();
    budget.put("budget_limit_micros", 100);
    r = create(budget);
    assertThat(r.status()).as(r.raw()).isEqualTo(402);
    assertThat(r.code()).isEqualTo("plan_required");
    assertThat(r.fields()).containsExactly("budget_limit_micros");

    assertNothingStored();
  }

  @Test
  void emptyRequiresEscalationForIsAllowedOnTheFreePlan() {
    h.useApiKey(h.newWorkspace("ws_free", "free"));
    ObjectNode body = inline();
    body.putArray("requires_escalation_for");
    body.putArray("requires_confirm_for").add("email.send");
    Resp r = create(body);
    assertThat(r.status()).as(r.raw()).isEqualTo(201);
  }

  @Test
  void proFieldsFromABundleOnAFreeWorkspaceReturn402() {
    h.useApiKey(h.newWorkspace("ws_free", "free"));
    bundle(
        "{\"id\":\"b1\",\"agent_id\":\"bot\",\"scopes\":[{\"name\":\"a\"}],\"default_expiry_days\":1}");
    Resp r =
        create("{\"user_id\":\"u1\",\"bundle_id\":\"b1\",\"requires_escalation_for\":[\"a\"]}");
    assertThat(r.status()).as(r.raw()).isEqualTo(402);
    assertThat(r.code()).isEqualTo("plan_required");
  }

  // ---- get

  @Test
  void getReturnsTheAuthorizationWithStatusActiveRevokedOrExpired() {
    String active = simple("u1", "a1");
    String revoked = simple("u2", "a1");
    String expiring =
        createId(
            """
            {"user_id":"u3","agent_id":"a1","scopes":[{"name":"x"}],
             "expires_at":"2026-11-22T11:00:00Z"}""");
    assertThat(h.delete("/v1/authorizations/" + revoked).status()).isEqualTo(200);

    Resp a = h.get("/v1/authorizations/" + active);
    assertThat(a.status()).isEqualTo(200);
    assertThat(a.body().path("status").asText()).isEqualTo("active");
    assertThat(a.body().path("user_id").asText()).isEqualTo("u1");
    assertThat(a.body().has("receipt")).isFalse();
    assertThat(a.body().path("scopes")).hasSize(1);

    Resp r = h.get("/v1/authorizations/" + revoked);
    assertThat(r.body().path("status").asText()).isEqualTo("revoked");
    assertThat(r.body().path("revoked_at").asText()).isEqualTo("2026-11-22T10:00:00.000Z");

    assertThat(h.get("/v1/authorizations/" + expiring).body().path("status").asText())
        .isEqualTo("active");
    h.clock.advance(Duration.ofHours(1));
    assertThat(h.get("/v1/authorizations/" + expiring).body().path("status").asText())
        .isEqualTo("expired");
  }

  @Test
  void getUnknownOrOtherWorkspacesAuthorizationReturns404() {
    String id = simple("u1", "a1");
    Resp unknown = h.get("/v1/authorizations/auth_nope");
    assertThat(unknown.status()).isEqualTo(404);
    assertThat(unknown.code()).isEqualTo("not_found");

    h.useApiKey(h.newWorkspace("ws_other", "pro"));
    Resp other = h.get("/v1/authorizations/" + id);
    assertThat(other.status()).isEqualTo(404);
    assertThat(other.code()).isEqualTo("not_found");
  }

  // ---- list

  @Test
  void listFiltersByUserAgentAndStatus() {
    String a = simple("alice", "mailer");
    String b = simple("alice", "calendar");
    String c = simple("bob", "mailer");
    String d =
        createId(
            """
            {"user_id":"bob","agent_id":"calendar","scopes":[{"name":"x"}],
             "expires_at":"2026-11-22T10:30:00Z"}""");
    assertThat(h.delete("/v1/authorizations/" + c).status()).isEqualTo(200);
    h.clock.advance(Duration.ofHours(1));

    assertThat(ids("/v1/authorizations")).containsExactly(a, b, c, d);
    assertThat(ids("/v1/authorizations?user_id=alice")).containsExactly(a, b);
    assertThat(ids("/v1/authorizations?agent_id=mailer")).containsExactly(a, c);
    assertThat(ids("/v1/authorizations?user_id=bob&agent_id=mailer")).containsExactly(c);
    assertThat(ids("/v1/authorizations?status=active")).containsExactly(a, b);
    assertThat(ids("/v1/authorizations?status=revoked")).containsExactly(c);
    assertThat(ids("/v1/authorizations?status=expired")).containsExactly(d);
    assertThat(ids("/v1/authorizations?user_id=carol")).isEmpty();

    Resp page = h.get("/v1/authorizations?status=revoked");
    assertThat(page.body().path("authorizations").get(0).path("status").asText())
        .isEqualTo("revoked");
    assertInvalid(h.get("/v1/authorizations?status=gone"), "status");
  }

  private List<String> ids(String path) {
    Resp r = h.get(path);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    List<String> out = new ArrayList<>();
    r.body().path("authorizations").forEach(a -> out.add(a.path("authorization_id").asText()));
    return out;
  }

  @Test
  void listPaginatesWithACursor() {
    List<String> created = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      created.add(simple("u1", "a1"));
    }
    simple("u2", "a1");

    List<String> seen = new ArrayList<>();
    String cursor = null;
    int pages = 0;
    do {
      Resp r =
          h.get(
              "/v1/authorizations?user_id=u1&limit=2"
                  + (cursor == null ? "" : "&cursor=" + cursor));
      assertThat(r.status()).as(r.raw()).isEqualTo(200);
      JsonNode b = r.body();
      assertThat(b.path("authorizations").size()).isLessThanOrEqualTo(2);
      b.path("authorizations").forEach(a -> seen.add(a.path("authorization_id").asText()));
      if (b.path("has_more").asBoolean()) {
        cursor = b.path("next_cursor").asText();
        assertThat(cursor).isNotBlank();
      } else {
        assertThat(b.get("next_cursor").isNull()).isTrue();
        cursor = null;
      }
      pages++;
    } while (cursor != null);

    assertThat(pages).isEqualTo(3);
    assertThat(seen).containsExactlyElementsOf(created);
  }

  @Test
  void listCursorIsBoundToItsFilters() {
    for (int i = 0; i < 3; i++) {
      simple("u1", "a1");
    }
    String cursor =
        h.get("/v1/authorizations?user_id=u1&limit=1").body().path("next_cursor").asText();

    assertThat(h.get("/v1/authorizations?user_id=u1&limit=1&cursor=" + cursor).status())
        .isEqualTo(200);
    assertInvalid(h.get("/v1/authorizations?user_id=u2&limit=1&cursor=" + cursor), "cursor");
    assertInvalid(h.get("/v1/authorizations?limit=1&cursor=" + cursor), "cursor");
    assertInvalid(h.get("/v1/authorizations?user_id=u1&status=active&cursor=" + cursor), "cursor");
    assertInvalid(h.get("/v1/authorizations?cursor=not-a-cursor!"), "cursor");
    assertInvalid(h.get("/v1/authorizations?cursor=djF8eHh4fHk"), "cursor");
  }

  @Test
  void listIsScopedToTheWorkspace() {
    simple("u1", "a1");
    h.useApiKey(h.newWorkspace("ws_other", "pro"));
    assertThat(ids("/v1/authorizations")).isEmpty();
  }

  // ---- revoke

  @Test
  void revokeReturns200WithRevokedAtAndReceipt() {
    String id = simple("u1", "a1");
    h.clock.advance(Duration.ofMillis(1234));

    Resp r = h.delete("/v1/authorizations/" + id);

    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    assertThat(r.body().path("authorization_id").asText()).isEqualTo(id);
    assertThat(r.body().path("revoked_at").asText()).isEqualTo("2026-11-22T10:00:01.234Z");
    assertThat(r.body().at("/receipt/status").asText()).isEqualTo("pending");
    JsonNode receipt = h.signedReceipt(r.body().at("/receipt/receipt_id").asText());
    assertThat(receipt.path("event").asText()).isEqualTo("authorization.revoke");
    assertThat(receipt.path("decision").asText()).isEqualTo("authorization_revoked");
    assertThat(receipt.path("reason").asText()).isEqualTo("authorization_revoked");
    assertThat(receipt.get("resource").isNull()).isTrue();
    assertThat(receipt.path("authorization_id").asText()).isEqualTo(id);
    assertThat(receipt.path("context")).isEqualTo(h.json("{\"revoked_by\":\"api_key\"}"));
    assertThat(h.verifyChain(id)).isEqualTo(2);

    JsonNode after = h.get("/v1/authorizations/" + id).body();
    assertThat(after.path("status").asText()).isEqualTo("revoked");
    assertThat(after.path("revoked_at").asText()).isEqualTo("2026-11-22T10:00:01.234Z");
  }

  @Test
  void revokeBodyPutsRevokedByAndNotesIntoTheReceipt() {
    String id = simple("u1", "a1");

    Resp r =
        h.delete(
            "/v1/authorizations/" + id,
            h.json("{\"revoked_by\":\"admin_17\",\"notes\":\"user asked\\nby phone\"}"));

    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    JsonNode receipt = h.signedReceipt(r.body().at("/receipt/receipt_id").asText());
    assertThat(receipt.path("context"))
        .isEqualTo(h.json("{\"revoked_by\":\"admin_17\",\"notes\":\"user asked\\nby phone\"}"));
    assertThat(h.verifyChain(id)).isEqualTo(2);
  }

  @Test
  void revokeAcceptsAnEmptyBody() {
    String id = simple("u1", "a1");
    assertThat(h.delete("/v1/authorizations/" + id, "").status()).isEqualTo(200);
    String other = simple("u1", "a1");
    assertThat(h.delete("/v1/authorizations/" + other, "{}").status()).isEqualTo(200);
  }

  @Test
  void revokeTwiceReturns409AlreadyRevoked() {
    String id = simple("u1", "a1");
    assertThat(h.delete("/v1/authorizations/" + id).status()).isEqualTo(200);

    Resp again = h.delete("/v1/authorizations/" + id);

    assertThat(again.status()).as(again.raw()).isEqualTo(409);
    assertThat(again.code()).isEqualTo("already_revoked");
    assertThat(h.chainIds(id)).hasSize(2);
  }

  @Test
  void revokeUnknownOrOtherWorkspacesAuthorizationReturns404() {
    Resp r = h.delete("/v1/authorizations/auth_unknown");
    assertThat(r.status()).isEqualTo(404);
    assertThat(r.code()).isEqualTo("not_found");

    String id = simple("u1", "a1");
    String mine = h.apiKey();
    h.useApiKey(h.newWorkspace("ws_other", "pro"));
    assertThat(h.delete("/v1/authorizations/" + id).status()).isEqualTo(404);
    h.useApiKey(mine);
    assertThat(h.get("/v1/authorizations/" + id).body().path("status").asText())
        .isEqualTo("active");
  }

  @Test
  void revokingAnExpiredAuthorizationSucceedsAndMakesItRevoked() {
    String id =
        createId(
            """
            {"user_id":"u1","agent_id":"a1","scopes":[{"name":"x"}],
             "expires_at":"2026-11-22T10:05:00Z"}""");
    h.clock.advance(Duration.ofMinutes(10));
    assertThat(h.get("/v1/authorizations/" + id).body().path("status").asText())
        .isEqualTo("expired");

    Resp r = h.delete("/v1/authorizations/" + id);

    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    assertThat(h.get("/v1/authorizations/" + id).body().path("status").asText())
        .isEqualTo("revoked");
    assertThat(h.verifyChain(id)).isEqualTo(2);
  }

  @Test
  void invalidRevokeBodyReturns400AndRevokesNothing() {
    String id = simple("u1", "a1");

    assertThat(
            h.delete("/v1/authorizations/" + id, h.json("{\"revoked_by\":\"ops@example.com\"}"))
                .code())
        .isEqualTo("pii_not_allowed");
    assertThat(
            h.delete("/v1/authorizations/" + id, h.json("{\"revoked_by\":\"+14155550123\"}"))
                .code())
        .isEqualTo("pii_not_allowed");
    assertInvalid(
        h.delete("/v1/authorizations/" + id, h.json("{\"revoked_by\":\"\"}")), "revoked_by");
    assertInvalid(
        h.delete("/v1/authorizations/" + id, h.json("{\"revoked_by\":\"x\\u0000\"}")),
        "revoked_by");
    assertInvalid(
        h.delete("/v1/authorizations/" + id, h.json("{\"notes\":\"" + "n".repeat(2001) + "\"}")),
        "notes");
    assertInvalid(h.delete("/v1/authorizations/" + id, h.json("{\"reason\":\"x\"}")), "reason");
    assertInvalid(h.delete("/v1/authorizations/" + id, "[]"), "body");

    assertThat(h.get("/v1/authorizations/" + id).body().path("status").asText())
        .isEqualTo("active");
    assertThat(h.chainIds(id)).hasSize(1);
  }

  @Test
  void revocationInvalidatesUnconsumedConfirmationNonces() {
    String id =
        createId(
            """
            {"user_id":"u1","agent_id":"a1","scopes":[{"name":"email.send"}],
             "requires_confirm_for":["email.send"],"expires_at":"%s"}"""
                .formatted(EXPIRES));
    Resp check =
        h.post(
            "/v1/check",
            h.json("{\"authorization_id\":\"" + id + "\",\"scopes\":[\"email.send\"]}"));
    String nonce = check.body().at("/results/email.send/confirm_nonce").asText();
    assertThat(nonce).isNotBlank();

    assertThat(h.delete("/v1/authorizations/" + id).status()).isEqualTo(200);

    Resp confirm = h.post("/v1/confirmations/" + nonce, h.json("{\"approved\":true}"));
    assertThat(confirm.status()).as(confirm.raw()).isEqualTo(410);
    assertThat(confirm.code()).isEqualTo("nonce_gone");
  }

  @Test
  void revocationInvalidatesPendingEscalations() {
    String id =
        createId(
            """
            {"user_id":"u1","agent_id":"a1","scopes":[{"name":"payments.send"}],
             "requires_escalation_for":["payments.send"],"expires_at":"%s"}"""
                .formatted(EXPIRES));
    Resp check =
        h.post(
            "/v1/check",
            h.json("{\"authorization_id\":\"" + id + "\",\"scopes\":[\"payments.send\"]}"));
    String escalation = check.body().at("/results/payments.send/escalation_id").asText();
    assertThat(escalation).isNotBlank();

    assertThat(h.delete("/v1/authorizations/" + id).status()).isEqualTo(200);

    Resp resolve =
        h.post(
            "/v1/escalations/" + escalation + "/resolve",
            h.json("{\"resolution\":\"approved\",\"resolved_by\":\"mgr_1\"}"));
    assertThat(resolve.status()).as(resolve.raw()).isEqualTo(409);
    assertThat(resolve.code()).isEqualTo("escalation_conflict");
    assertThat(h.verifyChain(id)).isEqualTo(3);
  }
}
