package dev.agentauth.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.model.CheckRequest;
import dev.agentauth.model.CreateAuthorizationRequest;
import dev.agentauth.model.Plan;
import dev.agentauth.server.service.Caller;
import dev.agentauth.server.service.MutationRunner;
import dev.agentauth.server.service.ServiceException;
import dev.agentauth.server.store.Store;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * What is read off a request before a service operation runs: the body parsed strictly (an unknown
 * member, a wrong type, an unpaired surrogate or a NUL is 400 naming the field), the request id,
 * the announced body size, {@code limit}, {@code wait}, and the Idempotency-Key with the request's
 * hash. Called directly, on a {@link FakeContext}.
 */
class RequestReaderTest {
  private static final Caller CALLER =
      new Caller("ws_a", Plan.Known.PRO, "hash_1", "key_1", ApiKeyRole.AGENT, null, null);
  private static final int MIB = 1024 * 1024;

  private final RequestReader reader = new RequestReader();

  private CheckRequest check(String json) {
    return reader.parse(json.getBytes(StandardCharsets.UTF_8), CheckRequest.class, false).value();
  }

  private static void assertRefused(
      ThrowingCallable call, int status, String field, String message) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            ServiceException.class,
            e -> {
              assertThat(e.status()).isEqualTo(status);
              if (field != null) {
                assertThat(e.errors()).hasSize(1);
                assertThat(e.errors().get(0).field()).isEqualTo(field);
                assertThat(e.errors().get(0).message()).contains(message);
              } else {
                assertThat(e.detail()).contains(message);
              }
            });
  }

  private static void assertInvalid(ThrowingCallable call, String field, String message) {
    assertRefused(call, 400, field, message);
  }

  // Parsing.

  @Test
  void aWellFormedBodyIsBoundToItsType() {
    CheckRequest r =
        check(
            "{\"authorization_id\":\"auth_1\",\"scopes\":[\"calendar.read\"],"
                + "\"resource\":\"doc:1\",\"estimated_cost_micros\":5}");

    assertThat(r.authorizationId()).isEqualTo("auth_1");
    assertThat(r.scopes()).containsExactly("calendar.read");
    assertThat(r.resource()).isEqualTo("doc:1");
    assertThat(r.estimatedCostMicros()).isEqualTo(5L);
  }

  @Test
  void anUnknownMemberIs400NamingIt() {
    assertInvalid(
        () -> check("{\"authorization_id\":\"a\",\"scopes\":[\"x\"],\"scope\":\"x\"}"),
        "scope",
        "is not a known field");
  }

  @Test
  void anUnknownNestedMemberIsNamedByItsPath() {
    String json =
        "{\"user_id\":\"u\",\"agent_id\":\"a\",\"scopes\":[{\"name\":\"x\"},"
            + "{\"name\":\"y\",\"constraints\":{\"max_per_day\":1,\"max_per_hour\":2}}]}";

    assertInvalid(
        () ->
            reader.parse(
                json.getBytes(StandardCharsets.UTF_8), CreateAuthorizationRequest.class, false),
        "scopes[1].constraints.max_per_hour",
        "is not a known field");
  }

  @Test
  void aMemberOfTheWrongTypeIs400NamingItAndTheExpectedType() {
    assertInvalid(
        () -> check("{\"authorization_id\":\"a\",\"scopes\":\"calendar.read\"}"),
        "scopes",
        "has the wrong type: expected array");
    assertInvalid(
        () ->
            check(
                "{\"authorization_id\":\"a\",\"scopes\":[\"x\"],\"estimated_cost_micros\":\"5\"}"),
        "estimated_cost_micros",
        "has the wrong type: expected integer");
    assertInvalid(
        () -> check("{\"authorization_id\":[\"a\"],\"scopes\":[\"x\"]}"),
        "authorization_id",
        "has the wrong type");
  }

  @Test
  void anUnpairedSurrogateIs400NamingTheStringThatHoldsIt() {
    assertInvalid(
        () -> check("{\"authorization_id\":\"a\",\"scopes\":[\"x\"],\"resource\":\"doc\\ud800\"}"),
        "resource",
        "unpaired UTF-16 surrogate");
    assertInvalid(
        () ->
            check(
                "{\"authorization_id\":\"a\",\"scopes\":[\"x\"],"
                    + "\"context\":{\"tags\":[\"ok\",\"\\udc00\"]}}"),
        "context.tags[1]",
        "unpaired UTF-16 surrogate");
  }

  @Test
  void aNulIs400NamingTheStringThatHoldsIt() {
    assertInvalid(
        () -> check("{\"authorization_id\":\"a\",\"scopes\":[\"x\"],\"session_id\":\"s\\u0000\"}"),
        "session_id",
        "U+0000");
  }

  @Test
  void aBodyThatIsNotOneJsonObjectIs400NamingBody() {
    assertInvalid(() -> check("[1]"), "body", "must be a JSON object");
    assertInvalid(() -> check("{\"authorization_id\":"), "body", "is not valid JSON");
    assertInvalid(
        () -> check("{\"authorization_id\":\"a\",\"authorization_id\":\"b\"}"),
        "body",
        "is not valid JSON");
    assertInvalid(() -> check(" \n"), "body", "must be a JSON object");
  }

  @Test
  void anEmptyBodyReadsAsAnEmptyObjectWhereAllowed() {
    CheckRequest r = reader.parse(new byte[0], CheckRequest.class, true).value();

    assertThat(r.authorizationId()).isNull();
    assertThat(r.scopes()).isNullOrEmpty();
  }

  // Request ids.

  @Test
  void aWellFormedRequestIdIsKeptAndAnythingElseReplaced() {
    String longest = "a".repeat(128);

    assertThat(RequestReader.requestId("req-1.A_b:c")).isEqualTo("req-1.A_b:c");
    assertThat(RequestReader.requestId(longest)).isEqualTo(longest);
    for (String bad : new String[] {null, "", "a".repeat(129), "has space", "caf\u00e9"}) {
      assertThat(RequestReader.requestId(bad)).as("for %s", bad).matches("req_[0-9a-z]+");
    }
  }

  @Test
  void startEchoesTheRequestIdAndKeepsItForTheProblem() {
    FakeContext c = new FakeContext("GET", "/v1/receipts", null).header("X-Request-Id", "abc-1");

    reader.start(c.context());

    assertThat(c.responseHeader("X-Request-Id")).isEqualTo("abc-1");
    assertThat((String) c.context().attribute(RequestReader.REQUEST_ID_ATTRIBUTE))
        .isEqualTo("abc-1");
  }

  // Body size.

  @Test
  void aBodyAnnouncedOverTwoMibIs413AtOnceAndClosesTheConnection() {
    FakeContext c = new FakeContext("POST", "/v1/check", null).body(new byte[16], 2L * MIB + 1);

    assertRefused(() -> reader.start(c.context()), 413, null, "larger than 1 MiB");
    assertThat(c.responseHeader("Connection")).isEqualTo("close");
    assertThat(c.bodyLeft()).as("nothing of the body read").isEqualTo(16);
  }

  @Test
  void aBodyOverOneMibHeldBackForContinueIs413AtOnce() {
    FakeContext c =
        new FakeContext("POST", "/v1/check", null)
            .body(new byte[16], MIB + 1L)
            .header("Expect", "100-continue");

    assertRefused(() -> reader.start(c.context()), 413, null, "larger than 1 MiB");
    assertThat(c.responseHeader("Connection")).isEqualTo("close");
  }

  @Test
  void aBodyJustOverOneMibIsDrainedAfterAuthenticationThenRefusedKeepingTheConnection() {
    byte[] body = new byte[MIB + 10];
    FakeContext c = new FakeContext("POST", "/v1/check", null).body(body, body.length);

    reader.start(c.context());
    assertThat(c.bodyLeft()).as("not read before authentication").isEqualTo(body.length);
    assertRefused(() -> reader.receive(c.context(), "ws_a"), 413, null, "larger than 1 MiB");

    assertThat(c.bodyLeft()).as("drained").isZero();
    assertThat(c.responseHeader("Connection")).isNull();
    assertThat(RequestReader.bodyUnread(c.context())).isFalse();
  }

  @Test
  void aContentLengthThatIsNotANumberIs400NamingIt() {
    FakeContext c = new FakeContext("POST", "/v1/check", null).header("Content-Length", "12x");

    assertInvalid(() -> reader.start(c.context()), "Content-Length", "is not a number");
  }

  @Test
  void aBodyShorterThanItsContentLengthIs400NamingBody() {
    FakeContext c = new FakeContext("POST", "/v1/check", null).body("{}".getBytes(), 10);

    assertInvalid(() -> RequestReader.body(c.context()), "body", "ended before its Content-Length");
    assertThat(c.responseHeader("Connection")).isEqualTo("close");
  }

  @Test
  void theBodyIsReadOnceAndKept() {
    FakeContext c = new FakeContext("POST", "/v1/check", null).body("{\"a\":1}");

    byte[] first = RequestReader.body(c.context());
    byte[] again = RequestReader.body(c.context());

    assertThat(new String(first, StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
    assertThat(again).isSameAs(first);
    assertThat(RequestReader.bodyUnread(c.context())).isFalse();
  }

  // Query parameters.

  @Test
  void limitIsFrom1To100Defaulting50() {
    assertThat(RequestReader.limit(new FakeContext("GET", "/v1/receipts", null).context()))
        .isEqualTo(50);
    assertThat(RequestReader.limit(new FakeContext("GET", "/v1/receipts", "limit=1").context()))
        .isEqualTo(1);
    assertThat(RequestReader.limit(new FakeContext("GET", "/v1/receipts", "limit=100").context()))
        .isEqualTo(100);
    for (String bad : List.of("0", "101", "ten", "-1", "1.5")) {
      FakeContext c = new FakeContext("GET", "/v1/receipts", "limit=" + bad);
      assertInvalid(() -> RequestReader.limit(c.context()), "limit", "\"" + bad + "\"");
    }
  }

  @Test
  void aNulInAPathOrQueryParameterIs400NamingIt() {
    FakeContext path = new FakeContext("GET", "/v1/receipts/x", null).pathParam("id", "r\u0000");
    FakeContext query = new FakeContext("GET", "/v1/receipts", "user_id=u%00");

    assertInvalid(
        () -> RequestReader.refuseNulInParameters(path.context()), "id", "must not contain U+0000");
    assertInvalid(
        () -> RequestReader.refuseNulInParameters(query.context()),
        "user_id",
        "must not contain U+0000");
  }

  // What a mutation needs.

  @Test
  void waitIsTrueOrFalse() {
    assertThat(mutation(new FakeContext("POST", "/v1/check", "wait=true")).waitForSignatures())
        .isTrue();
    assertThat(mutation(new FakeContext("POST", "/v1/check", "wait=false")).waitForSignatures())
        .isFalse();
    assertThat(mutation(new FakeContext("POST", "/v1/check", null)).waitForSignatures()).isFalse();
    FakeContext yes = new FakeContext("POST", "/v1/check", "wait=yes");
    assertInvalid(() -> mutation(yes), "wait", "must be true or false");
  }

  private static MutationRunner.Request mutation(FakeContext c) {
    return RequestReader.mutation(c.context(), CALLER, new Store.GroupKey("ws_a", "auth_1", null));
  }

  private static String hash(String method, String path, String query, String body) {
    return mutation(new FakeContext(method, path, query).header("Idempotency-Key", "k1").body(body))
        .requestHash();
  }

  @Test
  void theRequestHashCoversMethodPathQueryAndExactBodyBytes() {
    String base = hash("POST", "/v1/check", null, "{\"a\":1,\"b\":2}");

    assertThat(hash("POST", "/v1/check", null, "{\"a\":1,\"b\":2}")).isEqualTo(base).hasSize(64);
    assertThat(hash("POST", "/v1/check", null, "{\"b\":2,\"a\":1}")).isNotEqualTo(base);
    assertThat(hash("POST", "/v1/check", null, "{\"a\": 1,\"b\":2}")).isNotEqualTo(base);
    assertThat(hash("POST", "/v1/check", "wait=true", "{\"a\":1,\"b\":2}")).isNotEqualTo(base);
    assertThat(hash("POST", "/v1/authorizations", null, "{\"a\":1,\"b\":2}")).isNotEqualTo(base);
    assertThat(hash("PUT", "/v1/check", null, "{\"a\":1,\"b\":2}")).isNotEqualTo(base);
  }

  @Test
  void aMutationCarriesTheKeyTheCallerAndTheGroup() {
    MutationRunner.Request keyed =
        mutation(
            new FakeContext("POST", "/v1/check", null).header("Idempotency-Key", "k1").body("{}"));
    MutationRunner.Request unkeyed =
        mutation(new FakeContext("POST", "/v1/check", null).body("{}"));

    assertThat(keyed.idempotencyKey()).isEqualTo("k1");
    assertThat(keyed.caller()).isEqualTo(CALLER);
    assertThat(keyed.group()).isEqualTo(new Store.GroupKey("ws_a", "auth_1", null));
    assertThat(unkeyed.idempotencyKey()).isNull();
    assertThat(unkeyed.requestHash()).as("no hash without a key").isNull();
  }

  @Test
  void anIdempotencyKeyOver255CharactersIs400NamingTheHeader() {
    FakeContext c =
        new FakeContext("POST", "/v1/check", null)
            .header("Idempotency-Key", "k".repeat(256))
            .body("{}");

    assertInvalid(() -> mutation(c), "Idempotency-Key", "1 to 255 characters");
    assertThat(RequestReader.bodyUnread(c.context())).as("no hash, so no body read").isTrue();
  }
}
