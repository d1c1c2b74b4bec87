package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.verifier.ChainReport;
import dev.agentauth.verifier.ChainVerifier;
import dev.agentauth.verifier.ReceiptVerifier;
import dev.agentauth.verifier.VerificationResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An embedded reference server on a {@link TestClock} with an admin token, plus a small HTTP client
 * for tests whose every exchange is checked against the OpenAPI document ({@link OpenApiContract}).
 * Tests move the clock instead of sleeping, and every signed receipt they see can be verified
 * offline against the workspace's published keys.
 *
 * <pre>{@code
 * try (ServerHarness h = ServerHarness.start()) {
 *   Resp r = h.post("/v1/authorizations", h.json("{...}"));
 * }
 * }</pre>
 */
public final class ServerHarness implements AutoCloseable {
  public static final String ADMIN_TOKEN = "test-admin-token";
  public static final Instant START = Instant.parse("2026-11-22T10:00:00.000Z");

  public final TestClock clock;
  public final AgentAuthServer server;
  public final ObjectMapper mapper = AgentAuthJson.newObjectMapper();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private String apiKey;
  private final TestStores.Opened storeUnderTest;

  private ServerHarness(AgentAuthServer.Builder builder, TestClock clock) {
    this(builder, clock, ADMIN_TOKEN);
  }

  private ServerHarness(AgentAuthServer.Builder builder, TestClock clock, String adminToken) {
    this.clock = clock;
    this.storeUnderTest = builder.hasStore() ? null : TestStores.open();
    if (storeUnderTest != null) {
      builder.store(storeUnderTest.store());
    }
    this.server = builder.clock(clock).adminToken(adminToken).build().start();
    this.apiKey = server.apiKey();
  }

  /** A server on a pro workspace {@code ws_local}, clock at {@link #START}. */
  public static ServerHarness start() {
    return start(AgentAuthServer.builder());
  }

  /** A server configured by {@code builder} (clock and admin token are set here). */
  public static ServerHarness start(AgentAuthServer.Builder builder) {
    return new ServerHarness(builder, new TestClock(START));
  }

  /** {@link #start()} with no admin token: the admin API is switched off. */
  public static ServerHarness startWithoutAdminApi() {
    return new ServerHarness(AgentAuthServer.builder(), new TestClock(START), null);
  }

  public String apiKey() {
    return apiKey;
  }

  public String workspaceId() {
    return server.workspaceId();
  }

  /** A response: status, headers, raw body and the body parsed as JSON (null if not JSON). */
  public record Resp(int status, Map<String, List<String>> headers, String raw, JsonNode body) {
    public String header(String name) {
      for (Map.Entry<String, List<String>> e : headers.entrySet()) {
        if (e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty()) {
          return e.getValue().get(0);
        }
      }
      return null;
    }

    /** The problem {@code code}, for error responses. */
    public String code() {
      return body == null ? null : body.path("code").asText(null);
    }

    /** The {@code errors[].field} values of a validation problem. */
    public List<String> fields() {
      List<String> out = new ArrayList<>();
      if (body != null) {
        body.path("errors").forEach(e -> out.add(e.path("field").asText()));
      }
      return out;
    }
  }

  /** Parses a JSON literal (handy with text blocks). */
  public ObjectNode json(String text) {
    try {
      return (ObjectNode) mapper.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public Resp get(String path) {
    return send("GET", path, null, apiKey, Map.of());
  }

  public Resp post(String path, Object body) {
    return send("POST", path, body, apiKey, Map.of());
  }

  public Resp put(String path, Object body) {
    return send("PUT", path, body, apiKey, Map.of());
  }

  public Resp delete(String path) {
    return send("DELETE", path, null, apiKey, Map.of());
  }

  public Resp delete(String path, Object body) {
    return send("DELETE", path, body, apiKey, Map.of());
  }

  /** Admin API call with the admin token. */
  public Resp admin(String path, Object body) {
    return send("POST", path, body, ADMIN_TOKEN, Map.of());
  }

  /**
   * Sends a request. {@code body} may be a JsonNode, a String (sent as is), a byte[] or null;
   * {@code bearer} null sends no Authorization header.
   */
  public Resp send(
      String method, String path, Object body, String bearer, Map<String, String> headers) {
    try {
      byte[] sent;
      if (body == null) {
        sent = new byte[0];
      } else if (body instanceof byte[] bytes) {
        sent = bytes;
      } else if (body instanceof String s) {
        sent = s.getBytes(StandardCharsets.UTF_8);
      } else {
        sent = mapper.writeValueAsBytes(body);
      }
      HttpRequest.BodyPublisher publisher =
          body == null
              ? HttpRequest.BodyPublishers.noBody()
              : HttpRequest.BodyPublishers.ofByteArray(sent);
      HttpRequest.Builder b =
          HttpRequest.newBuilder(URI.create(server.baseUrl() + path))
              .timeout(Duration.ofSeconds(30))
              .method(method, publisher)
              .header("Content-Type", "application/json");
      if (bearer != null) {
        b.header("Authorization", "Bearer " + bearer);
      }
      headers.forEach(b::header);
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      JsonNode parsed = null;
      try {
        parsed = r.body().isEmpty() ? null : mapper.readTree(r.body());
      } catch (IOException notJson) {
        parsed = null;
      }
      // Every exchange is checked against the OpenAPI document (OpenApiContract).
      OpenApiContract.get()
          .check(
              method,
              path,
              sent,
              r.statusCode(),
              r.headers().firstValue("Content-Type").orElse(null),
              r.body());
      return new Resp(r.statusCode(), r.headers().map(), r.body(), parsed);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Creates another workspace through the admin API and returns an API key for it. */
  public String newWorkspace(String workspaceId, String plan) {
    Resp w =
        admin(
            "/admin/v1/workspaces",
            json("{\"workspace_id\":\"" + workspaceId + "\",\"plan\":\"" + plan + "\"}"));
    assertThat(w.status()).as(w.raw()).isEqualTo(201);
    Resp k = admin("/admin/v1/workspaces/" + workspaceId + "/api-keys", null);
    assertThat(k.status()).as(k.raw()).isEqualTo(201);
    return k.body().path("api_key").asText();
  }

  /**
   * Creates an API key in the bootstrap workspace through the admin API from a creation body (such
   * as {@code {"role":"agent"}}) and returns the 201 body, secret included.
   */
  public JsonNode newKey(String bodyJson) {
    Resp k =
        send(
            "POST",
            "/admin/v1/workspaces/" + workspaceId() + "/api-keys",
            bodyJson,
            ADMIN_TOKEN,
            Map.of());
    assertThat(k.status()).as(k.raw()).isEqualTo(201);
    return k.body();
  }

  /** Switches the API key used by {@link #get}, {@link #post} and friends. */
  public void useApiKey(String key) {
    this.apiKey = key;
  }

  /** The workspace's published keys document. */
  public JsonNode keys(String workspaceId) {
    Resp r = send("GET", "/v1/workspaces/" + workspaceId + "/keys", null, null, Map.of());
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    return r.body();
  }

  /** A verifier for {@code workspaceId}'s published keys, on the test clock. */
  public ReceiptVerifier verifier(String workspaceId) {
    return ReceiptVerifier.builder().keys(keys(workspaceId)).clock(clock).build();
  }

  /** Polls (without sleeping between tries longer than needed) until the receipt is signed. */
  public JsonNode signedReceipt(String receiptId) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      Resp r = get("/v1/receipts/" + receiptId);
      assertThat(r.status()).as(r.raw()).isEqualTo(200);
      if ("signed".equals(r.body().path("status").asText())) {
        return r.body().path("receipt");
      }
      Thread.onSpinWait();
    }
    throw new AssertionError("receipt " + receiptId + " was not signed within 10 s");
  }

  /** Fetches every receipt id of an authorization's chain in listing order. */
  public List<String> chainIds(String authorizationId) {
    List<String> ids = new ArrayList<>();
    String cursor = null;
    do {
      Resp r =
          get(
              "/v1/receipts?limit=100&authorization_id="
                  + authorizationId
                  + (cursor == null ? "" : "&cursor=" + cursor));
      assertThat(r.status()).as(r.raw()).isEqualTo(200);
      r.body().path("receipts").forEach(s -> ids.add(s.path("receipt_id").asText()));
      cursor = r.body().path("has_more").asBoolean() ? r.body().path("next_cursor").asText() : null;
    } while (cursor != null);
    return ids;
  }

  /**
   * Verifies every receipt of the authorization's chain offline and the chain as a whole, and
   * returns how many receipts were verified.
   */
  public int verifyChain(String authorizationId) {
    ReceiptVerifier verifier = verifier(workspaceId());
    List<String> texts = new ArrayList<>();
    for (String id : chainIds(authorizationId)) {
      String text = signedReceipt(id).toString();
      VerificationResult result = verifier.verify(text);
      assertThat(result.valid()).as("receipt %s: %s", id, result).isTrue();
      texts.add(text);
    }
    ChainReport report = new ChainVerifier(verifier).verify(texts);
    assertThat(report.valid()).as(report.toString()).isTrue();
    return texts.size();
  }

  @Override
  public void close() {
    server.close();
    if (storeUnderTest != null) {
      storeUnderTest.cleanup().run();
    }
  }
}
