package dev.agentauth.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.client.ReceiptListParams;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.model.Authorization;
import dev.agentauth.model.ReceiptRef;
import dev.agentauth.model.ReceiptSummary;
import dev.agentauth.model.SignedReceipt;
import dev.agentauth.model.WorkspaceKeys;
import dev.agentauth.server.AgentAuthServer;
import dev.agentauth.server.TestClock;
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
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import okhttp3.OkHttpClient;

/**
 * One embedded reference server on a {@link TestClock}, a typed client pointed at it, and the
 * offline checks every test applies to the receipts it sees: each one is verified with {@code
 * sdk-verifier} against the keys document the client itself fetched ({@code
 * workspaces().keysJson(id)}), and chains with {@link ChainVerifier}.
 *
 * <p>The server clock starts at 10:00 UTC three days before the real date: tests move it forward
 * instead of sleeping, the next UTC midnight is exactly 14 h away, and moving it by a day or two
 * still leaves it behind the client's wall clock ({@code ClientReceiptsIT} covers a server clock
 * running ahead).
 */
final class ItServer implements AutoCloseable {
  static final String ADMIN_TOKEN = "it-admin-token";
  static final Duration AWAIT = Duration.ofSeconds(10);

  /** One connection pool and dispatcher for every client of these tests. */
  static final OkHttpClient OK_HTTP = new OkHttpClient();

  static final ObjectMapper MAPPER = AgentAuthJson.newObjectMapper();

  private static final AtomicInteger IDS = new AtomicInteger();
  private static final HttpClient ADMIN_HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  final TestClock clock;
  final AgentAuthServer server;
  final AgentAuthClient client;

  private ItServer(Consumer<AgentAuthServer.Builder> options) {
    Instant start =
        Instant.now().truncatedTo(ChronoUnit.DAYS).minus(Duration.ofDays(3)).plusSeconds(36_000);
    this.clock = new TestClock(start);
    AgentAuthServer.Builder b =
        AgentAuthServer.builder().port(0).clock(clock).adminToken(ADMIN_TOKEN);
    options.accept(b);
    this.server = b.build().start();
    this.client = clientBuilder().build();
  }

  static ItServer start() {
    return start(b -> {});
  }

  /** A server with extra options (rate limit, ...); port, clock and admin token are set here. */
  static ItServer start(Consumer<AgentAuthServer.Builder> options) {
    return new ItServer(options);
  }

  /** A client builder for this server: base URL, API key and the shared OkHttp pool. */
  AgentAuthClient.Builder clientBuilder() {
    return AgentAuthClient.builder()
        .baseUrl(server.baseUrl())
        .apiKey(server.apiKey())
        .okHttpClient(OK_HTTP);
  }

  String workspaceId() {
    return server.workspaceId();
  }

  /** A fresh opaque id with {@code prefix}, unique in this JVM. */
  static String uniqueId(String prefix) {
    return prefix + "_" + IDS.incrementAndGet();
  }

  /** An inline authorization for a new user, expiring in 30 days (server time). */
  AuthorizationCreateParams.InlineBuilder inline(String... scopes) {
    AuthorizationCreateParams.InlineBuilder b =
        AuthorizationCreateParams.inline()
            .userId(uniqueId("user"))
            .agentId("agent_it")
            .expiresAt(clock.instant().plus(Duration.ofDays(30)));
    for (String s : scopes) {
      b.scope(s);
    }
    return b;
  }

  /** Creates an inline authorization for a new user with {@code scopes}. */
  Authorization authorize(String... scopes) {
    return client.authorizations().create(inline(scopes).build());
  }

  // ---- offline verification

  /** A verifier for {@code workspaceId}'s keys as the client fetched them, on the test clock. */
  ReceiptVerifier verifier(AgentAuthClient via, String workspaceId) {
    WorkspaceKeys keys = via.workspaces().keys(workspaceId);
    assertThat(keys.workspaceId()).isEqualTo(workspaceId);
    assertThat(keys.keys()).isNotEmpty();
    return ReceiptVerifier.builder()
        .keysJson(via.workspaces().keysJson(workspaceId))
        .clock(clock)
        .build();
  }

  ReceiptVerifier verifier() {
    return verifier(client, workspaceId());
  }

  /** Asserts that {@code receipt} verifies offline against this workspace's published keys. */
  SignedReceipt assertVerifies(SignedReceipt receipt) {
    return assertVerifies(verifier(), receipt);
  }

  static SignedReceipt assertVerifies(ReceiptVerifier verifier, SignedReceipt receipt) {
    VerificationResult r = verifier.verify(json(receipt));
    assertThat(r.valid()).as("receipt %s: %s", receipt.receiptId(), r).isTrue();
    return receipt;
  }

  /**
   * Waits for {@code ref} to be signed (through the client's {@code awaitSigned}) and verifies it
   * offline twice: the typed {@link SignedReceipt} as the client re-serializes it, and the receipt
   * text exactly as the service served it ({@code awaitSignedJson}).
   */
  SignedReceipt signed(ReceiptRef ref) {
    assertThat(ref).as("receipt member").isNotNull();
    ReceiptVerifier verifier = verifier();
    SignedReceipt typed = assertVerifies(verifier, client.receipts().awaitSigned(ref, AWAIT));
    assertThat(served(verifier, ref.receiptId())).isEqualTo(typed);
    return typed;
  }

  /** Like {@link #signed(ReceiptRef)} for a receipt id. */
  SignedReceipt signed(String receiptId) {
    ReceiptVerifier verifier = verifier();
    SignedReceipt typed = assertVerifies(verifier, client.receipts().awaitSigned(receiptId, AWAIT));
    assertThat(served(verifier, receiptId)).isEqualTo(typed);
    return typed;
  }

  /**
   * Fetches a receipt's text as served ({@code awaitSignedJson}), verifies it, reads it into the
   * typed model and verifies that model's re-serialization too (the model must be lossless).
   */
  private SignedReceipt served(ReceiptVerifier verifier, String receiptId) {
    String text = client.receipts().awaitSignedJson(receiptId, AWAIT);
    VerificationResult r = verifier.verify(text);
    assertThat(r.valid()).as("receipt %s as served: %s", receiptId, r).isTrue();
    try {
      return assertVerifies(verifier, MAPPER.readValue(text, SignedReceipt.class));
    } catch (JsonProcessingException e) {
      throw new AssertionError("receipt " + receiptId + " does not read as SignedReceipt", e);
    }
  }

  /**
   * Fetches the whole receipt chain of an authorization through the client (auto-paging, awaiting
   * every signature), verifies each receipt as served and as typed, checks the chain as a whole
   * with {@link ChainVerifier}, and returns it in order.
   */
  List<SignedReceipt> verifyChain(String authorizationId) {
    ReceiptVerifier verifier = verifier();
    List<SignedReceipt> chain = new ArrayList<>();
    List<String> texts = new ArrayList<>();
    for (ReceiptSummary s :
        client
            .receipts()
            .listAutoPaging(
                ReceiptListParams.builder().authorizationId(authorizationId).limit(100).build())) {
      String text = client.receipts().awaitSignedJson(s.receiptId(), AWAIT);
      SignedReceipt r;
      try {
        r = MAPPER.readValue(text, SignedReceipt.class);
      } catch (JsonProcessingException e) {
        throw new AssertionError("receipt " + s.receiptId() + " does not read as SignedReceipt", e);
      }
      assertVerifies(verifier, r);
      assertThat(r.receiptId()).isEqualTo(s.receiptId());
      assertThat(r.decision()).isEqualTo(s.decision());
      assertThat(r.issuedAt()).isEqualTo(s.createdAt());
      chain.add(r);
      texts.add(text);
    }
    assertThat(client.receipts().chainJson(authorizationId, AWAIT))
        .as("chainJson of %s", authorizationId)
        .isEqualTo(texts);
    ChainReport report = new ChainVerifier(verifier).verify(texts);
    assertThat(report.problems()).as("chain of %s", authorizationId).isEmpty();
    assertThat(report.results()).allSatisfy(res -> assertThat(res.valid()).isTrue());
    assertThat(report.authorizationId()).isEqualTo(authorizationId);
    return chain;
  }

  static String json(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  // ---- admin API (raw HTTP is fine here: it is not part of the client)

  /** Creates a workspace on {@code plan} through the admin API and returns a new API key. */
  String newWorkspace(String workspaceId, String plan) {
    JsonNode w =
        admin(
            "/admin/v1/workspaces",
            "{\"workspace_id\":\"" + workspaceId + "\",\"plan\":\"" + plan + "\"}",
            201);
    assertThat(w.path("workspace_id").asText()).isEqualTo(workspaceId);
    return admin("/admin/v1/workspaces/" + workspaceId + "/api-keys", "{}", 201)
        .path("api_key")
        .asText();
  }

  /** Rotates the workspace's signing key through the admin API; the old key stays published. */
  void rotateSigningKey() {
    admin("/admin/v1/workspaces/" + workspaceId() + "/signing-keys/rotate", "{}", 201);
  }

  private JsonNode admin(String path, String body, int expectedStatus) {
    try {
      HttpRequest request =
          HttpRequest.newBuilder(URI.create(server.baseUrl() + path))
              .timeout(Duration.ofSeconds(10))
              .header("Authorization", "Bearer " + ADMIN_TOKEN)
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(body))
              .build();
      HttpResponse<String> r = ADMIN_HTTP.send(request, HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as("POST %s: %s", path, r.body()).isEqualTo(expectedStatus);
      return MAPPER.readTree(r.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    // Idle keep-alive connections of the shared pool would hold the server's graceful stop.
    OK_HTTP.connectionPool().evictAll();
    server.close();
  }
}
