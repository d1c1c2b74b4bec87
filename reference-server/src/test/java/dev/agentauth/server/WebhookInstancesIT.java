package dev.agentauth.server;

import static dev.agentauth.server.CheckFixtures.authorize;
import static dev.agentauth.server.CheckFixtures.check;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.ServerMainIT.Child;
import dev.agentauth.server.WebhookReceiver.Received;
import dev.agentauth.server.store.PostgresTestDatabase;
import dev.agentauth.server.store.jdbc.JdbcStore;
import dev.agentauth.server.store.jdbc.MasterKey;
import dev.agentauth.server.webhook.DeliveryWorker;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Webhook delivery across processes and instances: an event committed before a SIGKILL is delivered
 * after the restart, and two PostgreSQL instances deliver each event once.
 */
class WebhookInstancesIT {
  private static final String KEY = "sk_" + "V2ViaG9va0luc3RhbmNlc0lU".repeat(2).substring(0, 43);
  private static final Duration WAIT = Duration.ofSeconds(15);

  @TempDir Path dir;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private Resp call(String base, String method, String path, String body) throws Exception {
    return ServerMainIT.send(http, method, base + path, body, KEY, Map.of());
  }

  @Test
  void anEventCommittedBeforeASigkillIsDeliveredAfterTheRestart() throws Exception {
    List<String> args =
        List.of(
            "--port",
            "0",
            "--store",
            "sqlite:" + dir.resolve("agentauth.db"),
            "--bootstrap-api-key",
            KEY,
            "--webhooks-allow-loopback");
    // The first attempt is held unanswered until the process is gone; later ones get 204.
    try (WebhookReceiver receiver = WebhookReceiver.holdingFirst(1)) {
      String eventId;
      try (Child first = new Child(args, Map.of(), dir)) {
        String base = first.awaitReady();
        Resp hook =
            call(
                base,
                "POST",
                "/v1/webhooks",
                "{\"url\":\"" + receiver.url() + "\",\"events\":[\"escalation.created\"]}");
        assertThat(hook.status()).as(hook.raw()).isEqualTo(201);
        Resp auth =
            call(
                base,
                "POST",
                "/v1/authorizations",
                "{\"user_id\":\"u1\",\"agent_id\":\"a1\",\"expires_at\":\"2099-01-01T00:00:00Z\","
                    + "\"scopes\":[{\"name\":\"pay.send\"}],"
                    + "\"requires_escalation_for\":[\"pay.send\"]}");
        assertThat(auth.status()).as(auth.raw()).isEqualTo(201);
        Resp checked =
            call(
                base,
                "POST",
                "/v1/check",
                "{\"authorization_id\":\""
                    + auth.body().path("authorization_id").asText()
                    + "\",\"scopes\":[\"pay.send\"]}");
        assertThat(checked.status()).as(checked.raw()).isEqualTo(200);
        // The escalation is committed and its attempt is under way, unanswered: kill now.
        eventId = receiver.take(1, WAIT).get(0).eventId();
        first.kill();
      }
      try (Child second = new Child(args, Map.of(), dir)) {
        String base = second.awaitReady();
        Received again = receiver.take(1, WAIT).get(0);
        assertThat(again.eventId()).isEqualTo(eventId);
        Resp hooks = call(base, "GET", "/v1/webhooks", null);
        String hookId = hooks.body().path("webhooks").get(0).path("id").asText();
        JsonNode d = awaitDelivered(base, hookId);
        assertThat(d.path("event_id").asText()).isEqualTo(eventId);
        // The killed attempt was never recorded; the one after the restart was.
        assertThat(d.path("attempts").asInt()).isEqualTo(1);
      }
    }
  }

  private JsonNode awaitDelivered(String base, String hookId) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      JsonNode d =
          call(base, "GET", "/v1/webhooks/" + hookId + "/deliveries", null)
              .body()
              .path("deliveries")
              .get(0);
      if (d.path("status").asText().equals("delivered")) {
        return d;
      }
      assertThat(System.nanoTime()).as("delivered in time: %s", d).isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  @Test
  void twoPostgresInstancesDeliverEachEventOnce() throws Exception {
    PostgresTestDatabase.assumeAvailable();
    String url = PostgresTestDatabase.freshSchemaUrl();
    MasterKey key = MasterKey.random();
    DeliveryWorker.Settings fast =
        DeliveryWorker.Settings.DEFAULT.withPollInterval(Duration.ofMillis(20));
    try (WebhookReceiver receiver = WebhookReceiver.ok();
        ServerHarness a =
            ServerHarness.start(
                AgentAuthServer.builder()
                    .store(JdbcStore.postgres(url, key))
                    .webhooksAllowLoopback(true)
                    .webhookSettings(fast));
        ServerHarness b =
            ServerHarness.start(
                AgentAuthServer.builder()
                    .store(JdbcStore.postgres(url, key))
                    .apiKey(a.apiKey())
                    .webhooksAllowLoopback(true)
                    .webhookSettings(fast))) {
      Resp hook =
          a.post(
              "/v1/webhooks",
              a.json("{\"url\":\"" + receiver.url() + "\",\"events\":[\"escalation.created\"]}"));
      assertThat(hook.status()).as(hook.raw()).isEqualTo(201);
      String auth =
          authorize(
              a,
              "{\"scopes\":[{\"name\":\"pay.send\"}],\"requires_escalation_for\":[\"pay.send\"]}");
      int events = 40;
      for (int i = 0; i < events; i++) {
        check(i % 2 == 0 ? a : b, auth, "pay.send").resource("invoice:" + i).result();
      }
      Map<String, Integer> times = new HashMap<>();
      for (Received r : receiver.take(events, WAIT)) {
        times.merge(r.eventId(), 1, Integer::sum);
      }
      assertThat(receiver.next(Duration.ofMillis(500))).as("a repeated delivery").isNull();
      assertThat(times).hasSize(events).allSatisfy((id, n) -> assertThat(n).as(id).isEqualTo(1));
      JsonNode log =
          a.get("/v1/webhooks/" + hook.body().path("id").asText() + "/deliveries?limit=100")
              .body()
              .path("deliveries");
      assertThat(log).hasSize(events);
      log.forEach(
          d -> {
            assertThat(d.path("status").asText()).isEqualTo("delivered");
            assertThat(d.path("attempts").asInt()).isEqualTo(1);
          });
    } finally {
      PostgresTestDatabase.dropSchema(url);
    }
  }
}
