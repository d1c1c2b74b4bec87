package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.store.MemoryStore;
import dev.agentauth.server.store.Store;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The HTTP protocol shared by every endpoint: authentication, problem+json errors, request ids,
 * strict JSON bodies, body size, routing, idempotency, rate limits, health and metrics (decisions
 * §1, §2, §10, §11).
 */
class ProtocolIT {
  private static final String EXPIRES = "2026-11-23T10:00:00Z";
  private static final int MAX_BODY = 1024 * 1024;

  /** Every endpoint that needs an API key, as method and path. */
  private static final List<String[]> PROTECTED =
      List.of(
          new String[] {"POST", "/v1/authorizations"},
          new String[] {"GET", "/v1/authorizations"},
          new String[] {"GET", "/v1/authorizations/auth_x"},
          new String[] {"DELETE", "/v1/authorizations/auth_x"},
          new String[] {"POST", "/v1/check"},
          new String[] {"POST", "/v1/confirmations/cn_x"},
          new String[] {"POST", "/v1/escalations/esc_x/resolve"},
          new String[] {"GET", "/v1/escalations"},
          new String[] {"GET", "/v1/escalations/esc_x"},
          new String[] {"POST", "/v1/agent-scope-bundles"},
          new String[] {"GET", "/v1/agent-scope-bundles"},
          new String[] {"GET", "/v1/agent-scope-bundles/b"},
          new String[] {"PUT", "/v1/agent-scope-bundles/b"},
          new String[] {"DELETE", "/v1/agent-scope-bundles/b"},
          new String[] {"POST", "/v1/tombstones"},
          new String[] {"GET", "/v1/tombstones"},
          new String[] {"GET", "/v1/receipts"},
          new String[] {"GET", "/v1/receipts/01JZ0000000000000000000000"});

  private ServerHarness h;

  @BeforeEach
  void start() {
    h = ServerHarness.start();
  }

  @AfterEach
  void stop() {
    h.close();
  }

  // ---- helpers

  private Resp send(String method, String path, Object body, Map<String, String> headers) {
    return h.send(method, path, body, h.apiKey(), headers);
  }

  private ObjectNode authorizationBody() {
    return h.json(
        """
        {"user_id":"u1","agent_id":"a1",
         "scopes":[{"name":"email.send","constraints":{"max_per_day":1}}],
         "expires_at":"%s"}"""
            .formatted(EXPIRES));
  }

  private String authorization() {
    Resp r = h.post("/v1/authorizations", authorizationBody());
    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    return r.body().path("authorization_id").asText();
  }

  private ObjectNode checkBody(String authorizationId) {
    return h.json("{\"scopes\":[\"email.send\"]}").put("authorization_id", authorizationId);
  }

  private static void assertProblem(Resp r, int status, String code) {
    assertThat(r.status()).as(r.raw()).isEqualTo(status);
    assertThat(r.header("Content-Type")).as(r.raw()).startsWith("application/problem+json");
    assertThat(r.code()).as(r.raw()).isEqualTo(code);
    assertThat(r.body().path("type").asText()).isEqualTo("/errors/" + code);
    assertThat(r.body().path("status").asInt()).isEqualTo(status);
    assertThat(r.body().path("title").asText()).isNotBlank();
    assertThat(r.body().path("request_id").asText()).isEqualTo(r.header("X-Request-Id"));
  }

  private static void assertInvalid(Resp r, String field) {
    assertProblem(r, 400, "invalid_request");
    assertThat(r.fields()).as(r.raw()).contains(field);
  }

  private void assertNothingStored() {
    assertThat(h.get("/v1/authorizations").body().path("authorizations")).isEmpty();
    assertThat(h.get("/v1/receipts").body().path("receipts")).isEmpty();
  }

  private List<String> chainDecisions(String authorizationId) {
    List<String> out = new ArrayList<>();
    h.get("/v1/receipts?authorization_id=" + authorizationId)
        .body()
        .path("receipts")
        .forEach(s -> out.add(s.path("decision").asText()));
    return out;
  }

  // ---- authentication

  @Test
  void missingApiKeyReturns401WithWwwAuthenticateOnEveryEndpoint() {
    for (String[] e : PROTECTED) {
      Resp r = h.send(e[0], e[1], body(e[0]), null, Map.of());
      assertUnauthenticated(r, e);
    }
  }

  @Test
  void malformedApiKeyReturns401OnEveryEndpoint() {
    List<String> malformed =
        List.of(
            "Basic dXNlcjpwYXNz",
            "Bearer",
            "Bearer not-a-key",
            "Bearer sk_short",
            "Bearer " + h.apiKey() + "x",
            "Token " + h.apiKey(),
            h.apiKey());
    for (String header : malformed) {
      for (String[] e : PROTECTED) {
        Resp r = h.send(e[0], e[1], body(e[0]), null, Map.of("Authorization", header));
        assertUnauthenticated(r, e);
      }
    }
  }

  @Test
  void unknownApiKeyReturns401OnEveryEndpoint() {
    String unknown = "sk_" + "A".repeat(43);
    for (String[] e : PROTECTED) {
      Resp r = h.send(e[0], e[1], body(e[0]), unknown, Map.of());
      assertUnauthenticated(r, e);
    }
  }

  @Test
  void bearerSchemeIsCaseInsensitive() {
    Resp r =
        h.send(
            "GET",
            "/v1/authorizations",
            null,
            null,
            Map.of("Authorization", "bearer " + h.apiKey()));
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
  }

  private static String body(String method) {
    return method.equals("GET") ? null : "{}";
  }

  private static void assertUnauthenticated(Resp r, String[] endpoint) {
    String what = endpoint[0] + " " + endpoint[1];
    assertThat(r.status()).as(what + " " + r.raw()).isEqualTo(401);
    assertThat(r.header("WWW-Authenticate")).as(what).isEqualTo("Bearer");
    assertThat(r.header("Content-Type")).as(what).startsWith("application/problem+json");
    assertThat(r.code()).as(what).isEqualTo("unauthenticated");
    assertThat(r.body().path("type").asText()).isEqualTo("/errors/unauthenticated");
  }

  @Test
  void workspaceKeysAreReadableWithoutAnApiKey() {
    Resp r = h.send("GET", "/v1/workspaces/ws_local/keys", null, null, Map.of());

    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    assertThat(r.body().path("workspace_id").asText()).isEqualTo("ws_local");
    JsonNode key = r.body().path("keys").get(0);
    assertThat(key.path("alg").asText()).isEqualTo("Ed25519");
    assertThat(key.path("key_id").asText()).isNotBlank();
    assertThat(java.util.Base64.getUrlDecoder().decode(key.path("public_key").asText()))
        .hasSize(32);
    assertThat(key.path("active_from").asText()).isEqualTo("2026-11-22T10:00:00.000Z");
    assertThat(key.get("active_until").isNull()).isTrue();

    Resp withBadKey = h.send("GET", "/v1/workspaces/ws_local/keys", null, "sk_bad", Map.of());
    assertThat(withBadKey.status()).isEqualTo(200);
  }

  @Test
  void workspaceKeysOfAnUnknownWorkspaceReturn404() {
    Resp r = h.send("GET", "/v1/workspaces/ws_nope/keys", null, null, Map.of());
    assertProblem(r, 404, "not_found");
  }

  // ---- problem details and request ids

  @Test
  void errorsAreProblemDetailsWithCodeAndRequestId() {
    Resp r = h.get("/v1/authorizations/auth_missing");

    assertProblem(r, 404, "not_found");
    JsonNode b = r.body();
    assertThat(b.path("title").asText()).isEqualTo("Not Found");
    assertThat(b.path("detail").asText()).isNotBlank();
    assertThat(b.has("errors")).isFalse();
    assertThat(r.header("X-Request-Id")).isNotBlank();
  }

  @Test
  void validationProblemsListTheFieldsInErrors() {
    Resp r = h.post("/v1/authorizations", h.json("{\"agent_id\":\"a1\"}"));

    assertProblem(r, 400, "invalid_request");
    assertThat(r.body().path("title").asText()).isEqualTo("Bad Request");
    assertThat(r.fields()).contains("user_id", "scopes", "expires_at");
    for (JsonNode e : r.body().path("errors")) {
      assertThat(e.path("message").asText()).isNotBlank();
    }
  }

  @Test
  void saneRequestIdsAreEchoed() {
    for (String id : List.of("abc-123", "req_01HZX.v2:7", "x".repeat(128))) {
      Resp ok = send("GET", "/v1/authorizations", null, Map.of("X-Request-Id", id));
      assertThat(ok.header("X-Request-Id")).isEqualTo(id);
      Resp problem = send("GET", "/v1/authorizations/nope", null, Map.of("X-Request-Id", id));
      assertThat(problem.header("X-Request-Id")).isEqualTo(id);
      assertThat(problem.body().path("request_id").asText()).isEqualTo(id);
    }
  }

  @Test
  void missingOrInsaneRequestIdsAreReplacedByGeneratedOnes() {
    Resp none = h.get("/v1/authorizations/nope");
    String generated = none.header("X-Request-Id");
    assertThat(generated).isNotBlank();
    assertThat(none.body().path("request_id").asText()).isEqualTo(generated);
    assertThat(h.get("/v1/authorizations/nope").header("X-Request-Id")).isNotEqualTo(generated);

    for (String bad : List.of("has spaces", "x".repeat(500), "semi;colon", "quote\"d")) {
      Resp r = send("GET", "/v1/authorizations/nope", null, Map.of("X-Request-Id", bad));
      assertThat(r.header("X-Request-Id")).as(bad).isNotEqualTo(bad).isNotBlank();
      assertThat(r.body().path("request_id").asText()).isEqualTo(r.header("X-Request-Id"));
    }
  }

  @Test
  void everyResponseCarriesARequestId() {
    assertThat(h.send("GET", "/healthz", null, null, Map.of()).header("X-Request-Id")).isNotBlank();
    assertThat(h.post("/v1/authorizations", authorizationBody()).header("X-Request-Id"))
        .isNotBlank();
    assertThat(h.send("GET", "/nowhere", null, null, Map.of()).header("X-Request-Id")).isNotBlank();
  }

  // ---- strict JSON bodies

  @Test
  void malformedOrNonObjectBodiesReturn400AndStoreNothing() {
    for (String raw :
        List.of("{", "{\"user_id\":", "not json", "[]", "5", "\"x\"", "null", "", "{} {}")) {
      Resp r = h.post("/v1/authorizations", raw);
      assertInvalid(r, "body");
    }
    Resp dup =
        h.post(
            "/v1/authorizations",
            "{\"user_id\":\"u1\",\"user_id\":\"u2\",\"agent_id\":\"a\","
                + "\"scopes\":[{\"name\":\"s\"}],\"expires_at\":\""
                + EXPIRES
                + "\"}");
    assertProblem(dup, 400, "invalid_request");
    assertNothingStored();
  }

  @Test
  void wrongTypesReturn400NamingTheField() {
    ObjectNode scopes = authorizationBody();
    scopes.put("scopes", "x");
    assertInvalid(h.post("/v1/authorizations", scopes), "scopes");

    ObjectNode maxPerDay = authorizationBody();
    ((ObjectNode) maxPerDay.at("/scopes/0/constraints")).put("max_per_day", "5");
    assertInvalid(h.post("/v1/authorizations", maxPerDay), "scopes[0].constraints.max_per_day");

    ObjectNode userId = authorizationBody();
    userId.put("user_id", 42);
    assertInvalid(h.post("/v1/authorizations", userId), "user_id");

    ObjectNode metadata = authorizationBody();
    metadata.put("metadata", "text");
    assertInvalid(h.post("/v1/authorizations", metadata), "metadata");

    ObjectNode expires = authorizationBody();
    expires.put("expires_at", 1764000000);
    assertInvalid(h.post("/v1/authorizations", expires), "expires_at");

    assertNothingStored();

    String id = authorization();
    ObjectNode resource = checkBody(id);
    resource.put("resource", 5);
    assertInvalid(h.post("/v1/check", resource), "resource");
    ObjectNode scopeNumber = h.json("{\"scopes\":[1]}").put("authorization_id", id);
    assertInvalid(h.post("/v1/check", scopeNumber), "scopes[0]");
    ObjectNode approved = h.json("{\"approved\":\"true\"}");
    assertInvalid(h.post("/v1/confirmations/cn_x", approved), "approved");
    assertThat(chainDecisions(id)).containsExactly("authorization_granted");
  }

  @Test
  void unknownFieldsReturn400NamingTheFieldPath() {
    ObjectNode top = authorizationBody();
    top.put("expires", EXPIRES);
    assertInvalid(h.post("/v1/authorizations", top), "expires");

    ObjectNode nested = authorizationBody();
    ((ObjectNode) nested.at("/scopes/0/constraints")).remove("max_per_day");
    ((ObjectNode) nested.at("/scopes/0/constraints")).put("max_per_dya", 1);
    Resp r = h.post("/v1/authorizations", nested);
    assertInvalid(r, "scopes[0].constraints.max_per_dya");
    assertThat(r.fields()).containsExactly("scopes[0].constraints.max_per_dya");

    ObjectNode inScope = authorizationBody();
    ((ObjectNode) inScope.at("/scopes/0")).put("limit", 3);
    assertInvalid(h.post("/v1/authorizations", inScope), "scopes[0].limit");

    assertNothingStored();

    String id = authorization();
    ObjectNode check = checkBody(id);
    check.put("user_id", "u1");
    assertInvalid(h.post("/v1/check", check), "user_id");
    assertThat(chainDecisions(id)).containsExactly("authorization_granted");
  }

  @Test
  void opaqueObjectsAcceptAnyMemberNames() {
    ObjectNode body = authorizationBody();
    body.set("metadata", h.json("{\"max_per_dya\":1,\"nested\":{\"whatever\":[\"x\"]}}"));
    assertThat(h.post("/v1/authorizations", body).status()).isEqualTo(201);
  }

  // ---- size limit

  private static byte[] oversizedBody() {
    StringBuilder sb = new StringBuilder(MAX_BODY + 64);
    sb.append("{\"user_id\":\"u1\",\"metadata\":{\"blob\":\"");
    while (sb.length() < MAX_BODY + 16) {
      sb.append("xxxxxxxxxxxxxxxx");
    }
    sb.append("\"}}");
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void bodyOverOneMebibyteWithContentLengthReturns413() {
    Resp r = h.post("/v1/authorizations", oversizedBody());
    assertProblem(r, 413, "payload_too_large");
    assertNothingStored();
  }

  @Test
  void chunkedBodyOverOneMebibyteReturns413() throws Exception {
    byte[] body = oversizedBody();
    HttpRequest req =
        HttpRequest.newBuilder(URI.create(h.server.baseUrl() + "/v1/authorizations"))
            .header("Authorization", "Bearer " + h.apiKey())
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)))
            .build();
    HttpResponse<String> resp;
    try {
      resp =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1) // a body of unknown length goes chunked
              .build()
              .send(req, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new AssertionError("the server should answer 413, not drop the connection", e);
    }
    assertThat(resp.statusCode()).as(resp.body()).isEqualTo(413);
    assertThat(resp.headers().firstValue("Content-Type").orElse(""))
        .startsWith("application/problem+json");
    assertThat(h.json(resp.body()).path("code").asText()).isEqualTo("payload_too_large");
    assertNothingStored();
  }

  /** A response read off a raw socket: status code, lower-cased headers and body. */
  private record RawResponse(int status, Map<String, String> headers, String body) {}

  /**
   * Sends a POST head announcing {@code announced} body bytes, then {@code sent} of them, on a raw
   * socket, and reads one response. A second request can follow on the same connection when {@code
   * then} is not null; its response is returned too.
   */
  private List<RawResponse> raw(
      long announced, int sent, Map<String, String> extraHeaders, String then) throws IOException {
    URI base = URI.create(h.server.baseUrl());
    try (java.net.Socket socket = new java.net.Socket(base.getHost(), base.getPort())) {
      socket.setSoTimeout(30_000); // a hang fails the test instead of stalling the build
      var out = socket.getOutputStream();
      StringBuilder head =
          new StringBuilder("POST /v1/authorizations HTTP/1.1\r\n")
              .append("Host: ")
              .append(base.getAuthority())
              .append("\r\nAuthorization: Bearer ")
              .append(h.apiKey())
              .append("\r\nContent-Type: application/json\r\nContent-Length: ")
              .append(announced)
              .append("\r\n");
      extraHeaders.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
      out.write(head.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
      byte[] chunk = new byte[64 * 1024];
      java.util.Arrays.fill(chunk, (byte) 'x');
      for (int left = sent; left > 0; left -= chunk.length) {
        out.write(chunk, 0, Math.min(left, chunk.length));
      }
      out.flush();
      var in = new java.io.BufferedInputStream(socket.getInputStream());
      List<RawResponse> answers = new ArrayList<>();
      answers.add(readResponse(in));
      if (then != null) {
        out.write(then.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        answers.add(readResponse(in));
      }
      return answers;
    }
  }

  private static RawResponse readResponse(java.io.InputStream in) throws IOException {
    List<String> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    while (true) {
      int b = in.read();
      if (b == -1) {
        throw new IOException("connection closed before a full response head: " + lines);
      }
      if (b == '\n') {
        String l = line.toString().strip();
        if (l.isEmpty()) {
          break;
        }
        lines.add(l);
        line.setLength(0);
      } else {
        line.append((char) b);
      }
    }
    int status = Integer.parseInt(lines.get(0).split(" ")[1]);
    Map<String, String> headers = new java.util.HashMap<>();
    for (String l : lines.subList(1, lines.size())) {
      int colon = l.indexOf(':');
      headers.put(
          l.substring(0, colon).trim().toLowerCase(java.util.Locale.ROOT),
          l.substring(colon + 1).trim());
    }
    int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
    return new RawResponse(
        status, headers, new String(in.readNBytes(length), StandardCharsets.UTF_8));
  }

  private void assertRaw413(RawResponse r) {
    assertThat(r.status()).as(r.body()).isEqualTo(413);
    assertThat(r.headers().get("content-type")).startsWith("application/problem+json");
    assertThat(h.json(r.body()).path("code").asText()).isEqualTo("payload_too_large");
  }

  @Test
  void oversizedBodyWithinTheDrainLimitIsReadSoTheClientGets413AndKeepsTheConnection()
      throws IOException {
    // Just over the limit and within the 2 MiB drain limit, from an authenticated caller: read and
    // thrown away, so a client still sending gets the answer instead of a reset.
    int size = 2 * MAX_BODY;
    List<RawResponse> answers =
        raw(size, size, Map.of(), "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n");
    assertRaw413(answers.get(0));
    assertThat(answers.get(0).headers()).doesNotContainKey("connection");
    assertThat(answers.get(1).status()).isEqualTo(200);
    assertNothingStored();
  }

  @Test
  void oversizedBodyHeldBackFor100ContinueIsRefusedWithoutBeingRequested() throws IOException {
    // The client sends no body until told to; a 100 Continue here would make it send 2 MiB for
    // nothing, so the answer must be the 413 itself.
    RawResponse r = raw(2L * MAX_BODY, 0, Map.of("Expect", "100-continue"), null).get(0);
    assertRaw413(r);
    assertThat(r.headers().get("connection")).isEqualToIgnoringCase("close");
    assertNothingStored();
  }

  @Test
  void bodyAnnouncedBeyondTheDrainLimitIsRefusedAtOnceAndTheConnectionClosed() throws IOException {
    // Nothing of the announced body is sent: a server that tried to read it first would hang.
    for (long announced : new long[] {2L * MAX_BODY + 1, 8_000_000L, 1L << 30}) {
      RawResponse r = raw(announced, 0, Map.of(), null).get(0);
      assertRaw413(r);
      assertThat(r.headers().get("connection")).isEqualToIgnoringCase("close");
    }
    assertNothingStored();
  }

  @Test
  void bodyOfExactlyTheLimitIsNotRejectedForSize() {
    byte[] body = new byte[MAX_BODY];
    java.util.Arrays.fill(body, (byte) ' ');
    byte[] json = "{}".getBytes(StandardCharsets.UTF_8);
    System.arraycopy(json, 0, body, 0, json.length);
    Resp r = h.post("/v1/tombstones", body);
    assertInvalid(r, "resource"); // parsed, then rejected for content, not for size
  }

  // ---- routing

  @Test
  void unknownRouteReturns404Problem() {
    for (String path : List.of("/", "/v2/check", "/v1/authorization", "/v1/check/extra")) {
      Resp r = h.get(path);
      assertProblem(r, 404, "not_found");
    }
    assertProblem(h.send("GET", "/nowhere", null, null, Map.of()), 404, "not_found");
  }

  @Test
  void wrongMethodReturns405Problem() {
    assertProblem(h.get("/v1/check"), 405, "method_not_allowed");
    assertProblem(
        h.send("PATCH", "/v1/authorizations", "{}", h.apiKey(), Map.of()),
        405,
        "method_not_allowed");
    assertProblem(h.delete("/v1/receipts"), 405, "method_not_allowed");
    assertProblem(h.put("/v1/tombstones", "{}"), 405, "method_not_allowed");
  }

  // ---- unexpected faults

  /** A memory store that can be told to fail every transaction, to provoke a 500. */
  private static final class FailingStore implements Store {
    final MemoryStore delegate = new MemoryStore();
    final AtomicBoolean failing = new AtomicBoolean();

    @Override
    public <T> T inTransaction(Work<T> work) {
      if (failing.get()) {
        throw new IllegalStateException(
            "SECRET connection to db-internal.example:5432 refused for user agentauth");
      }
      return delegate.inTransaction(work);
    }

    @Override
    public boolean isReachable() {
      return !failing.get() && delegate.isReachable();
    }

    @Override
    public String describe() {
      return "failing";
    }

    @Override
    public void close() {
      delegate.close();
    }
  }

  @Test
  void unexpectedFaultsReturn500WithoutInternals() {
    FailingStore store = new FailingStore();
    try (ServerHarness f = ServerHarness.start(AgentAuthServer.builder().store(store))) {
      assertThat(f.get("/v1/authorizations").status()).isEqualTo(200); // caches the API key
      assertThat(f.send("GET", "/readyz", null, null, Map.of()).status()).isEqualTo(200);
      store.failing.set(true);
      try {
        Resp r = f.get("/v1/authorizations");
        assertProblem(r, 500, "internal_error");
        assertThat(r.body().path("title").asText()).isEqualTo("Internal Server Error");
        assertThat(r.raw())
            .doesNotContain("SECRET")
            .doesNotContain("db-internal")
            .doesNotContain("IllegalStateException")
            .doesNotContain("dev.agentauth")
            .doesNotContain("\tat ");

        Resp ready = f.send("GET", "/readyz", null, null, Map.of());
        assertProblem(ready, 503, "not_ready");
        assertThat(f.send("GET", "/healthz", null, null, Map.of()).status()).isEqualTo(200);
      } finally {
        store.failing.set(false);
      }
    }
  }

  // ---- idempotency

  private static Map<String, String> key(String k) {
    return Map.of("Idempotency-Key", k);
  }

  @Test
  void sameIdempotencyKeyAndBodyReplaysTheFirstResponseByteForByte() {
    Resp first = send("POST", "/v1/authorizations", authorizationBody(), key("create-1"));
    assertThat(first.status()).isEqualTo(201);
    assertThat(first.header("Idempotent-Replayed")).isNull();
    h.clock.advance(Duration.ofMinutes(10));

    Resp again = send("POST", "/v1/authorizations", authorizationBody(), key("create-1"));

    assertThat(again.status()).isEqualTo(201);
    assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(again.raw()).isEqualTo(first.raw());
    assertThat(again.header("Content-Type")).startsWith("application/json");
    assertThat(h.get("/v1/authorizations").body().path("authorizations")).hasSize(1);
  }

  @Test
  void replayedCheckDoesNotCountAgainstMaxPerDay() {
    String id = authorization();

    Resp first = send("POST", "/v1/check", checkBody(id), key("check-1"));
    Resp replay = send("POST", "/v1/check", checkBody(id), key("check-1"));

    assertThat(first.body().at("/results/email.send/decision").asText()).isEqualTo("allow");
    assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(replay.raw()).isEqualTo(first.raw());
    assertThat(replay.body().at("/results/email.send/decision").asText()).isEqualTo("allow");
    assertThat(chainDecisions(id)).containsExactly("authorization_granted", "allow");

    Resp fresh = h.post("/v1/check", checkBody(id));
    assertThat(fresh.body().at("/results/email.send/reason").asText())
        .isEqualTo("rate_limit_exceeded");
  }

  @Test
  void sameIdempotencyKeyWithAnotherBodyReturns409() {
    String id = authorization();
    assertThat(send("POST", "/v1/check", checkBody(id), key("k1")).status()).isEqualTo(200);

    ObjectNode other = checkBody(id);
    other.put("resource", "doc/1");
    Resp conflict = send("POST", "/v1/check", other, key("k1"));
    assertProblem(conflict, 409, "idempotency_conflict");

    Resp otherPath = send("POST", "/v1/tombstones", h.json("{\"resource\":\"r\"}"), key("k1"));
    assertProblem(otherPath, 409, "idempotency_conflict");

    Resp otherQuery = send("POST", "/v1/check?wait=false", checkBody(id), key("k1"));
    assertProblem(otherQuery, 409, "idempotency_conflict");
    assertThat(chainDecisions(id)).containsExactly("authorization_granted", "allow");
  }

  @Test
  void idempotencyKeysAreScopedPerApiKey() {
    String id = authorization();
    assertThat(send("POST", "/v1/check", checkBody(id), key("shared")).status()).isEqualTo(200);
    Resp k = h.admin("/admin/v1/workspaces/ws_local/api-keys", null);
    String secondKey = k.body().path("api_key").asText();

    Resp other = h.send("POST", "/v1/check", checkBody(id), secondKey, key("shared"));

    assertThat(other.status()).isEqualTo(200);
    assertThat(other.header("Idempotent-Replayed")).isNull();
    assertThat(other.body().at("/results/email.send/reason").asText())
        .isEqualTo("rate_limit_exceeded");
  }

  @Test
  void idempotencyKeyLongerThan255CharactersReturns400() {
    Resp r = send("POST", "/v1/authorizations", authorizationBody(), key("k".repeat(256)));
    assertInvalid(r, "Idempotency-Key");
    assertNothingStored();
    Resp ok = send("POST", "/v1/authorizations", authorizationBody(), key("k".repeat(255)));
    assertThat(ok.status()).isEqualTo(201);
  }

  @Test
  void idempotencyRecordsExpireAfter24Hours() {
    String id = authorization();
    Resp first = send("POST", "/v1/check", checkBody(id), key("daily"));
    h.clock.advance(Duration.ofHours(24).minusMillis(1));
    Resp replay = send("POST", "/v1/check", checkBody(id), key("daily"));
    assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(replay.raw()).isEqualTo(first.raw());

    h.clock.advance(Duration.ofMillis(1));
    Resp fresh = send("POST", "/v1/check", checkBody(id), key("daily"));

    assertThat(fresh.header("Idempotent-Replayed")).isNull();
    assertThat(fresh.raw()).isNotEqualTo(first.raw());
    assertThat(chainDecisions(id)).hasSize(3);

    ObjectNode changed = checkBody(id);
    changed.put("resource", "x");
    h.clock.advance(Duration.ofHours(24));
    assertThat(send("POST", "/v1/check", changed, key("daily")).status()).isEqualTo(200);
  }

  @Test
  void rejectedRequestsAreNotRecordedUnderTheirIdempotencyKey() {
    ObjectNode bad = authorizationBody();
    bad.remove("user_id");
    assertThat(send("POST", "/v1/authorizations", bad, key("retry-me")).status()).isEqualTo(400);

    Resp good = send("POST", "/v1/authorizations", authorizationBody(), key("retry-me"));

    assertThat(good.status()).as(good.raw()).isEqualTo(201);
    assertThat(good.header("Idempotent-Replayed")).isNull();
  }

  @Test
  void idempotentRevokeReplaysInsteadOfReturning409() {
    String id = authorization();
    Resp first = send("DELETE", "/v1/authorizations/" + id, null, key("revoke-1"));
    Resp again = send("DELETE", "/v1/authorizations/" + id, null, key("revoke-1"));

    assertThat(first.status()).isEqualTo(200);
    assertThat(again.status()).isEqualTo(200);
    assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(again.raw()).isEqualTo(first.raw());
    assertThat(h.delete("/v1/authorizations/" + id).status()).isEqualTo(409);
  }

  @Test
  void replayOfAWaitedCheckCarriesTheSameReceiptId() {
    String id = authorization();
    Resp first = send("POST", "/v1/check?wait=true", checkBody(id), key("w"));
    Resp replay = send("POST", "/v1/check?wait=true", checkBody(id), key("w"));

    JsonNode signed = first.body().at("/results/email.send/receipt");
    JsonNode replayed = replay.body().at("/results/email.send/receipt");
    assertThat(signed.has("signature")).isTrue();
    assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(replayed.path("receipt_id").asText()).isEqualTo(signed.path("receipt_id").asText());
    assertThat(chainDecisions(id)).containsExactly("authorization_granted", "allow");
  }

  @Test
  void invalidWaitParameterReturns400() {
    String id = authorization();
    assertInvalid(h.post("/v1/check?wait=yes", checkBody(id)), "wait");
    assertThat(chainDecisions(id)).containsExactly("authorization_granted");
  }

  // ---- rate limit

  @Test
  void burstBeyondTheRateLimitReturns429WithRetryAfter() {
    try (ServerHarness limited = ServerHarness.start(AgentAuthServer.builder().rateLimit(5))) {
      for (int i = 0; i < 5; i++) {
        assertThat(limited.get("/v1/authorizations").status()).isEqualTo(200);
      }
      Resp limitedResp = null;
      for (int i = 0; i < 20 && limitedResp == null; i++) {
        Resp r = limited.get("/v1/authorizations");
        if (r.status() == 429) {
          limitedResp = r;
        }
      }
      assertThat(limitedResp).as("a request beyond the burst of 5 must be limited").isNotNull();
      assertProblem(limitedResp, 429, "rate_limited");
      assertThat(limitedResp.header("Retry-After")).isEqualTo("1");

      // Other API keys, and endpoints without one, are not affected.
      Resp k = limited.admin("/admin/v1/workspaces/ws_local/api-keys", null);
      String other = k.body().path("api_key").asText();
      assertThat(limited.send("GET", "/v1/authorizations", null, other, Map.of()).status())
          .isEqualTo(200);
      assertThat(limited.send("GET", "/healthz", null, null, Map.of()).status()).isEqualTo(200);
      assertThat(limited.send("GET", "/v1/workspaces/ws_local/keys", null, null, Map.of()).status())
          .isEqualTo(200);
    }
  }

  @Test
  void noRateLimitByDefault() {
    for (int i = 0; i < 60; i++) {
      assertThat(h.get("/v1/tombstones").status()).isEqualTo(200);
    }
  }

  // ---- health and metrics

  @Test
  void healthAndReadinessNeedNoApiKey() {
    Resp health = h.send("GET", "/healthz", null, null, Map.of());
    assertThat(health.status()).isEqualTo(200);
    assertThat(health.body().path("status").asText()).isEqualTo("ok");
    Resp ready = h.send("GET", "/readyz", null, null, Map.of());
    assertThat(ready.status()).isEqualTo(200);
    assertThat(ready.body().path("status").asText()).isEqualTo("ready");
  }

  @Test
  void metricsArePrometheusTextWithAgentauthMetrics() {
    String id = authorization();
    assertThat(h.post("/v1/check?wait=true", checkBody(id)).status()).isEqualTo(200);

    Resp m = h.send("GET", "/metrics", null, null, Map.of());

    assertThat(m.status()).isEqualTo(200);
    assertThat(m.header("Content-Type")).startsWith("text/plain");
    assertThat(m.raw())
        .contains("# TYPE agentauth_")
        .contains("agentauth_signing_backlog")
        .contains("agentauth_signing_lag_seconds")
        .contains("agentauth_decisions_total{decision=\"allow\"}")
        .contains("agentauth_decisions_total{decision=\"authorization_granted\"}");
  }

  // ---- paging parameters

  @Test
  void limitOutsideOneToOneHundredReturns400() {
    List<String> lists =
        List.of(
            "/v1/authorizations",
            "/v1/receipts",
            "/v1/escalations",
            "/v1/agent-scope-bundles",
            "/v1/tombstones");
    for (String list : lists) {
      for (String bad : List.of("0", "101", "-1", "abc", "1.5", "", "99999999999")) {
        assertInvalid(h.get(list + "?limit=" + bad), "limit");
      }
      assertThat(h.get(list + "?limit=1").status()).as(list).isEqualTo(200);
      assertThat(h.get(list + "?limit=100").status()).as(list).isEqualTo(200);
    }
  }
}
