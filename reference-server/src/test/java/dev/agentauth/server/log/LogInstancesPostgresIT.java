package dev.agentauth.server.log;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.server.AgentAuthServer;
import dev.agentauth.server.store.PostgresTestDatabase;
import dev.agentauth.server.store.jdbc.JdbcStore;
import dev.agentauth.server.store.jdbc.MasterKey;
import dev.agentauth.verifier.log.Checkpoint;
import dev.agentauth.verifier.log.CheckpointVerifier;
import dev.agentauth.verifier.log.LogHash;
import dev.agentauth.verifier.log.MerkleRoot;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two server instances on one PostgreSQL database integrate the same workspace's log at once, under
 * a load of checks spread over both, while a reader fetches checkpoints from both: the log ends
 * gap-free, without duplicates, holding every signed receipt, and every checkpoint either instance
 * handed out is the root of a prefix of it. Skipped, saying how to provide one, without PostgreSQL.
 */
class LogInstancesPostgresIT {
  private static final String KEY =
      "sk_" + "TG9nSW5zdGFuY2VzUG9zdGdyZXM".repeat(3).substring(0, 43);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int CHECKS = 900;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private String url;
  private final List<AgentAuthServer> servers = new ArrayList<>();
  private ExecutorService pool;

  @BeforeEach
  void database() {
    PostgresTestDatabase.assumeAvailable();
    url = PostgresTestDatabase.freshSchemaUrl();
    pool = Executors.newFixedThreadPool(10);
  }

  @AfterEach
  void cleanUp() throws InterruptedException {
    if (pool != null) {
      pool.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }
    for (AgentAuthServer s : servers) {
      s.close();
    }
    if (url != null) {
      PostgresTestDatabase.dropSchema(url);
    }
  }

  private JsonNode call(String method, String uri, String body, boolean keyed) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(uri))
            .timeout(Duration.ofSeconds(30))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .header("Content-Type", "application/json");
    if (keyed) {
      b.header("Authorization", "Bearer " + KEY);
    }
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() == 404 && uri.contains("/log/checkpoint")) {
      return null;
    }
    assertThat(r.statusCode()).as(method + " " + uri + ": " + r.body()).isIn(200, 201);
    return uri.contains("/log/checkpoint")
        ? JSON.getNodeFactory().textNode(r.body())
        : JSON.readTree(r.body());
  }

  @Test
  void twoInstancesIntegratingAtOnceLeaveOneGapFreeLogConsistentWithEveryCheckpoint()
      throws Exception {
    MasterKey masterKey = MasterKey.random();
    for (int i = 0; i < 2; i++) {
      servers.add(
          AgentAuthServer.builder()
              .port(0)
              .store(JdbcStore.postgres(url, masterKey))
              .apiKey(KEY)
              // Instances behind one name share one origin.
              .publicUrl("https://log.example")
              .build()
              .start());
    }
    String a = servers.get(0).baseUrl();
    String b = servers.get(1).baseUrl();
    String ws = servers.get(0).workspaceId();
    String auth =
        call(
                "POST",
                a + "/v1/authorizations",
                "{\"user_id\":\"u\",\"agent_id\":\"g\",\"expires_at\":\""
                    + java.time.Instant.now().plus(Duration.ofDays(30))
                    + "\","
                    + "\"scopes\":[{\"name\":\"x.read\"}]}",
                true)
            .path("authorization_id")
            .asText();
    AtomicBoolean loading = new AtomicBoolean(true);
    ConcurrentLinkedQueue<String> notes = new ConcurrentLinkedQueue<>();
    Future<?> reader =
        pool.submit(
            () -> {
              while (loading.get()) {
                for (String base : List.of(a, b)) {
                  JsonNode n =
                      call("GET", base + "/v1/workspaces/" + ws + "/log/checkpoint", null, false);
                  if (n != null) {
                    notes.add(n.asText());
                  }
                }
              }
              return null;
            });
    List<Future<?>> load = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      String base = t % 2 == 0 ? a : b;
      load.add(
          pool.submit(
              () -> {
                for (int i = 0; i < CHECKS / 8; i++) {
                  call(
                      "POST",
                      base + "/v1/check",
                      "{\"authorization_id\":\"" + auth + "\",\"scopes\":[\"x.read\"]}",
                      true);
                }
                return null;
              }));
    }
    for (Future<?> f : load) {
      f.get(5, TimeUnit.MINUTES);
    }
    int expected = CHECKS / 8 * 8 + 1; // and the authorization's receipt
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (call("GET", a + "/v1/log/entries?limit=1", null, true).path("tree_size").asLong()
        < expected) {
      assertThat(System.nanoTime()).as("every receipt in the log within 60 s").isLessThan(deadline);
      Thread.onSpinWait();
    }
    // The newest checkpoint catches up too.
    while (notes.isEmpty() || !notes.stream().anyMatch(n -> n.contains("\n" + expected + "\n"))) {
      JsonNode n = call("GET", b + "/v1/workspaces/" + ws + "/log/checkpoint", null, false);
      if (n != null) {
        notes.add(n.asText());
      }
      assertThat(System.nanoTime()).as("a checkpoint of every receipt").isLessThan(deadline);
    }
    loading.set(false);
    reader.get(1, TimeUnit.MINUTES);

    // The log: indexes 0..n-1, each receipt once, every receipt of the workspace.
    List<byte[]> leaves = new ArrayList<>();
    Set<String> ids = new HashSet<>();
    for (long start = 0; start < expected; ) {
      JsonNode page = call("GET", a + "/v1/log/entries?start=" + start + "&limit=1000", null, true);
      assertThat(page.path("tree_size").asLong()).isEqualTo(expected);
      for (JsonNode e : page.path("entries")) {
        assertThat(e.path("log_index").asLong()).isEqualTo(start);
        assertThat(ids.add(e.path("receipt").path("receipt_id").asText())).isTrue();
        leaves.add(LogHash.leaf(e.path("receipt")));
        start++;
      }
    }
    Set<String> listed = new HashSet<>();
    String cursor = null;
    do {
      JsonNode page =
          call(
              "GET",
              a + "/v1/receipts?limit=100" + (cursor == null ? "" : "&cursor=" + cursor),
              null,
              true);
      page.path("receipts").forEach(r -> listed.add(r.path("receipt_id").asText()));
      cursor = page.path("has_more").asBoolean() ? page.path("next_cursor").asText() : null;
    } while (cursor != null);
    assertThat(ids).isEqualTo(listed).hasSize(expected);
    assertThat(
            servers.get(0).logIntegrator().integratedTotal()
                + servers.get(1).logIntegrator().integratedTotal())
        .isEqualTo(expected);

    // Every checkpoint handed out: signed by the workspace's key, the root of a prefix.
    CheckpointVerifier verifier =
        CheckpointVerifier.create(
            call("GET", a + "/v1/workspaces/" + ws + "/keys", null, false), List.of());
    byte[][] roots = new byte[expected + 1][];
    MerkleRoot root = new MerkleRoot();
    roots[0] = root.root();
    for (int i = 0; i < expected; i++) {
      root.add(leaves.get(i));
      roots[i + 1] = root.root();
    }
    assertThat(notes).isNotEmpty();
    for (String note : new HashSet<>(notes)) {
      Checkpoint c = verifier.verify(note).checkpoint();
      assertThat(c.origin()).isEqualTo("log.example/agentauth/" + ws);
      assertThat(c.rootHash()).as("root of %d", c.treeSize()).isEqualTo(roots[(int) c.treeSize()]);
    }
  }
}
