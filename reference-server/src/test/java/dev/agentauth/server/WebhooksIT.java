package dev.agentauth.server;

import static dev.agentauth.server.CheckFixtures.authorize;
import static dev.agentauth.server.CheckFixtures.check;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.client.WebhookVerificationException;
import dev.agentauth.client.Webhooks;
import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.WebhookReceiver.Received;
import dev.agentauth.server.webhook.DeliveryWorker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Webhooks end to end (decisions.md §20) against a receiver on loopback: every event type arrives
 * once, signed; failed attempts are retried with backoff; a slow receiver holds up neither checks
 * nor other receivers; targets that are not public are refused at creation.
 */
class WebhooksIT {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final Duration TOLERANCE = Duration.ofMinutes(5);
  private static final String ALL_EVENTS =
      "[\"escalation.created\",\"escalation.resolved\",\"escalation.expired\","
          + "\"confirmation.requested\",\"authorization.revoked\"]";

  private static ServerHarness server(boolean allowLoopback) {
    return ServerHarness.start(
        AgentAuthServer.builder()
            .webhooksAllowLoopback(allowLoopback)
            .publicUrl("https://agentauth.example/")
            .webhookSettings(
                DeliveryWorker.Settings.DEFAULT.withPollInterval(Duration.ofMillis(50))));
  }

  private static JsonNode createWebhook(ServerHarness h, String url, String eventsJson) {
    Resp r =
        h.post("/v1/webhooks", h.json("{\"url\":\"" + url + "\",\"events\":" + eventsJson + "}"));
    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    assertThat(r.header("Cache-Control")).isEqualTo("no-store");
    return r.body();
  }

  private static JsonNode parse(ServerHarness h, String body) {
    try {
      return h.mapper.readTree(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String escalate(ServerHarness h, String authorizationId, String resource) {
    return check(h, authorizationId, "pay.send")
        .resource(resource)
        .result()
        .path("escalation_id")
        .asText();
  }

  @Test
  void everyEventTypeArrivesOnceSignedWithTheSecretShownAtCreation() throws Exception {
    try (ServerHarness h = server(true);
        WebhookReceiver receiver = WebhookReceiver.ok()) {
      JsonNode hook = createWebhook(h, receiver.url(), ALL_EVENTS);
      String secret = hook.path("secret").asText();
      assertThat(secret).startsWith("whsec_");
      assertThat(hook.path("id").asText()).startsWith("wh_");
      // Shown once: the list has no secret.
      JsonNode listed = h.get("/v1/webhooks").body().path("webhooks").get(0);
      assertThat(listed.path("id").asText()).isEqualTo(hook.path("id").asText());
      assertThat(listed.has("secret")).isFalse();

      String auth =
          authorize(
              h,
              "{\"scopes\":[{\"name\":\"pay.send\"},{\"name\":\"email.send\"}],"
                  + "\"requires_escalation_for\":[\"pay.send\"],"
                  + "\"requires_confirm_for\":[\"email.send\"]}");
      String resolvedEsc = escalate(h, auth, "invoice:1");
      check(h, auth, "email.send").resource("mail:1").result();
      Resp resolve =
          h.post(
              "/v1/escalations/" + resolvedEsc + "/resolve",
              h.json("{\"resolution\":\"approved\",\"resolved_by\":\"appr_1\"}"));
      assertThat(resolve.status()).as(resolve.raw()).isEqualTo(200);
      String expiringEsc = escalate(h, auth, "invoice:2");
      h.clock.advance(Duration.ofHours(25)); // the second escalation expires unresolved
      // Two escalations created, one resolved, one expired, one confirmation asked for.
      List<Received> first = receiver.take(5, WAIT);
      Resp revoke = h.delete("/v1/authorizations/" + auth, h.json("{}"));
      assertThat(revoke.status()).as(revoke.raw()).isEqualTo(200);
      List<Received> all = new java.util.ArrayList<>(first);
      all.addAll(receiver.take(1, WAIT));

      Map<String, JsonNode> byType = new HashMap<>();
      Map<String, Integer> counts = new HashMap<>();
      Set<String> ids = new HashSet<>();
      for (Received r : all) {
        Webhooks.verify(r.body(), r.signature(), secret, TOLERANCE);
        JsonNode event = parse(h, r.body());
        counts.merge(event.path("type").asText(), 1, Integer::sum);
        byType.putIfAbsent(event.path("type").asText(), event);
        assertThat(ids.add(event.path("id").asText())).isTrue();
        assertThat(event.path("id").asText()).startsWith("evt_").isEqualTo(r.eventId());
        assertThat(event.path("type").asText()).isEqualTo(r.eventType());
        assertThat(event.path("workspace_id").asText()).isEqualTo("ws_local");
        assertThat(event.path("created_at").asText()).isNotEmpty();
      }
      assertThat(counts)
          .isEqualTo(
              Map.of(
                  "escalation.created", 2,
                  "escalation.resolved", 1,
                  "escalation.expired", 1,
                  "confirmation.requested", 1,
                  "authorization.revoked", 1));
      JsonNode created = byType.get("escalation.created").path("data");
      assertThat(created.path("escalation_id").asText()).isIn(resolvedEsc, expiringEsc);
      assertThat(created.path("status").asText()).isEqualTo("pending");
      assertThat(created.path("console_url").asText())
          .isEqualTo(
              "https://agentauth.example/console/#/escalations/"
                  + created.path("escalation_id").asText());
      assertThat(byType.get("escalation.resolved").path("data").path("status").asText())
          .isEqualTo("approved");
      JsonNode expired = byType.get("escalation.expired");
      assertThat(expired.path("data").path("escalation_id").asText()).isEqualTo(expiringEsc);
      assertThat(expired.path("data").path("status").asText()).isEqualTo("expired");
      assertThat(expired.path("data").path("console_url").asText()).endsWith(expiringEsc);
      JsonNode confirmation = byType.get("confirmation.requested").path("data");
      assertThat(confirmation.path("nonce").asText()).isNotEmpty();
      assertThat(confirmation.path("scope").asText()).isEqualTo("email.send");
      assertThat(confirmation.path("resource").asText()).isEqualTo("mail:1");
      assertThat(byType.get("authorization.revoked").path("data").path("authorization_id").asText())
          .isEqualTo(auth);

      // The resolved escalation's expiry is never sent: its delivery is cancelled.
      h.clock.advance(Duration.ofHours(1));
      assertThat(receiver.next(Duration.ofMillis(500))).isNull();
      JsonNode deliveries =
          h.get("/v1/webhooks/" + hook.path("id").asText() + "/deliveries").body();
      Map<String, Integer> statuses = new HashMap<>();
      deliveries
          .path("deliveries")
          .forEach(d -> statuses.merge(d.path("status").asText(), 1, Integer::sum));
      assertThat(statuses).isEqualTo(Map.of("delivered", 6, "cancelled", 1));

      // A changed character, another secret or an old timestamp fail verification.
      Received one = all.get(0);
      String changed = one.body().replaceFirst("ws_local", "ws_locam");
      assertThat(
              org.assertj.core.api.Assertions.catchThrowable(
                  () -> Webhooks.verify(changed, one.signature(), secret, TOLERANCE)))
          .isInstanceOf(WebhookVerificationException.class)
          .hasMessageStartingWith("signature:");
    }
  }

  /** Waits until the only delivery of {@code path} has {@code n} attempts recorded. */
  private static void awaitAttempts(ServerHarness h, String path, int n)
      throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (h.get(path).body().path("deliveries").get(0).path("attempts").asInt() < n) {
      assertThat(System.nanoTime()).as("attempt %d recorded in time", n).isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  @Test
  void aReceiverThatAnswers500TwiceGetsTheSameEventAThirdTime() throws Exception {
    try (ServerHarness h = server(true);
        WebhookReceiver receiver = WebhookReceiver.answering(n -> n <= 2 ? 500 : 204)) {
      JsonNode hook = createWebhook(h, receiver.url(), "[\"escalation.created\"]");
      String auth =
          authorize(
              h,
              "{\"scopes\":[{\"name\":\"pay.send\"}],\"requires_escalation_for\":[\"pay.send\"]}");
      escalate(h, auth, "invoice:1");

      String path = "/v1/webhooks/" + hook.path("id").asText() + "/deliveries";
      Received first = receiver.take(1, WAIT).get(0);
      awaitAttempts(h, path, 1);
      // The retry waits for its backoff (10 s at most, by the server's clock): nothing before.
      assertThat(receiver.next(Duration.ofMillis(300))).isNull();
      h.clock.advance(Duration.ofSeconds(10));
      Received second = receiver.take(1, WAIT).get(0);
      awaitAttempts(h, path, 2);
      h.clock.advance(Duration.ofSeconds(20));
      Received third = receiver.take(1, WAIT).get(0);

      assertThat(List.of(second.eventId(), third.eventId())).containsOnly(first.eventId());
      assertThat(List.of(second.body(), third.body())).containsOnly(first.body());
      awaitAttempts(h, path, 3);
      JsonNode d = h.get(path).body().path("deliveries").get(0);
      assertThat(d.path("event_id").asText()).isEqualTo(first.eventId());
      assertThat(d.path("status").asText()).isEqualTo("delivered");
      assertThat(d.path("attempts").asInt()).isEqualTo(3);
      assertThat(d.path("last_status_code").asInt()).isEqualTo(204);
      assertThat(d.path("delivered_at").isNull()).isFalse();
      h.clock.advance(Duration.ofHours(1));
      assertThat(receiver.next(Duration.ofMillis(300))).isNull();
    }
  }

  /** Waits until the newest delivery of {@code path} has {@code status}. */
  private static JsonNode awaitStatus(ServerHarness h, String path, String status)
      throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      JsonNode d = h.get(path).body().path("deliveries").get(0);
      if (d.path("status").asText().equals(status)) {
        return d;
      }
      assertThat(System.nanoTime()).as("%s in time: %s", status, d).isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  private static List<String> eventIds(ServerHarness h, String path) {
    List<String> ids = new java.util.ArrayList<>();
    h.get(path).body().path("deliveries").forEach(d -> ids.add(d.path("event_id").asText()));
    return ids;
  }

  @Test
  void finishedDeliveriesAreDeletedOnceTheirEventIsOlderThanTheRetentionPeriod() throws Exception {
    try (ServerHarness h = server(true);
        WebhookReceiver up = WebhookReceiver.ok();
        WebhookReceiver down = WebhookReceiver.answering(n -> 503)) {
      String upLog =
          "/v1/webhooks/"
              + createWebhook(h, up.url(), "[\"escalation.created\"]").path("id").asText()
              + "/deliveries";
      String downLog =
          "/v1/webhooks/"
              + createWebhook(h, down.url(), "[\"escalation.created\"]").path("id").asText()
              + "/deliveries";
      String auth =
          authorize(
              h,
              "{\"scopes\":[{\"name\":\"pay.send\"}],\"requires_escalation_for\":[\"pay.send\"]}");
      escalate(h, auth, "invoice:1"); // event 1, now
      String first = up.take(1, WAIT).get(0).eventId();
      awaitAttempts(h, downLog, 1);
      h.clock.advance(Duration.ofHours(25)); // the failing receiver's next attempt gives up
      awaitStatus(h, downLog, "failed");
      awaitStatus(h, upLog, "delivered");
      escalate(h, auth, "invoice:2"); // event 2, 25 hours later
      String second = up.take(1, WAIT).get(0).eventId();
      awaitAttempts(h, downLog, 1);
      assertThat(eventIds(h, upLog)).containsExactly(second, first);

      // Seven days and one hour after event 1, six days after event 2 (the server's clock).
      h.clock.advance(Duration.ofDays(6));
      awaitStatus(h, downLog, "failed"); // event 2 has given up too
      h.server.webhookWorker().prune();

      assertThat(eventIds(h, upLog)).containsExactly(second);
      assertThat(eventIds(h, downLog)).containsExactly(second);
      assertThat(h.server.webhookWorker().prune()).isZero();
    }
  }

  /** A metric's value from {@code /metrics}: {@code name} with its labels, if any. */
  private static double metric(ServerHarness h, String name) {
    String text = h.send("GET", "/metrics", null, null, Map.of()).raw();
    for (String line : text.split("\n")) {
      if (line.startsWith(name + " ")) {
        return Double.parseDouble(line.substring(name.length() + 1).trim());
      }
    }
    throw new AssertionError(name + " not in /metrics:\n" + text);
  }

  /** Polls (which measures the outbox) until {@code name} reads {@code value}. */
  private static void awaitMetric(ServerHarness h, String name, double value)
      throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      h.server.webhookWorker().poll();
      double now = metric(h, name);
      if (now == value) {
        return;
      }
      assertThat(System.nanoTime()).as("%s = %s, not %s", name, now, value).isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  @Test
  void metricsCountAttemptsByOutcomeDeliveriesEndedTheOutboxAndTheLatency() throws Exception {
    try (ServerHarness h = server(true);
        WebhookReceiver receiver = WebhookReceiver.answering(n -> n == 1 ? 500 : 204)) {
      assertThat(metric(h, "agentauth_webhook_pending")).isZero();
      assertThat(metric(h, "agentauth_webhook_oldest_pending_seconds")).isZero();
      JsonNode hook = createWebhook(h, receiver.url(), "[\"escalation.created\"]");
      String path = "/v1/webhooks/" + hook.path("id").asText() + "/deliveries";
      String auth =
          authorize(
              h,
              "{\"scopes\":[{\"name\":\"pay.send\"}],\"requires_escalation_for\":[\"pay.send\"]}");
      escalate(h, auth, "invoice:1");
      receiver.take(1, WAIT);
      awaitAttempts(h, path, 1);

      // The retry waits at least 5 s (half of 10 s at most taken off): 4 s on, still pending.
      h.clock.advance(Duration.ofSeconds(4));
      awaitMetric(h, "agentauth_webhook_oldest_pending_seconds", 4.0);
      assertThat(metric(h, "agentauth_webhook_pending")).isEqualTo(1.0);
      assertThat(metric(h, "agentauth_webhook_attempts_total{outcome=\"http_error\"}"))
          .isEqualTo(1.0);
      assertThat(metric(h, "agentauth_webhook_attempts_total{outcome=\"success\"}")).isZero();
      assertThat(metric(h, "agentauth_webhook_deliveries_finished_total{status=\"delivered\"}"))
          .isZero();

      h.clock.advance(Duration.ofSeconds(6)); // 10 s after the event: the retry is due
      receiver.take(1, WAIT);
      awaitStatus(h, path, "delivered");
      awaitMetric(h, "agentauth_webhook_pending", 0.0);
      assertThat(metric(h, "agentauth_webhook_oldest_pending_seconds")).isZero();
      assertThat(metric(h, "agentauth_webhook_attempts_total{outcome=\"success\"}")).isEqualTo(1.0);
      assertThat(metric(h, "agentauth_webhook_attempts_total{outcome=\"http_error\"}"))
          .isEqualTo(1.0);
      assertThat(metric(h, "agentauth_webhook_attempts_total{outcome=\"timeout\"}")).isZero();
      assertThat(metric(h, "agentauth_webhook_deliveries_finished_total{status=\"delivered\"}"))
          .isEqualTo(1.0);
      assertThat(metric(h, "agentauth_webhook_deliveries_finished_total{status=\"failed\"}"))
          .isZero();
      assertThat(metric(h, "agentauth_webhook_attempt_seconds_count")).isEqualTo(2.0);
      // Delivered 10 s after its event, by the server's clock.
      assertThat(metric(h, "agentauth_webhook_delivery_latency_seconds_count")).isEqualTo(1.0);
      assertThat(metric(h, "agentauth_webhook_delivery_latency_seconds_sum")).isEqualTo(10.0);
    }
  }

  @Test
  void aSlowReceiverDelaysNeitherChecksNorAnotherReceiver() throws Exception {
    try (ServerHarness h = server(true);
        WebhookReceiver slow = WebhookReceiver.slow();
        WebhookReceiver fast = WebhookReceiver.ok()) {
      createWebhook(h, slow.url(), "[\"escalation.created\"]");
      createWebhook(h, fast.url(), "[\"escalation.created\"]");
      String auth =
          authorize(
              h,
              "{\"scopes\":[{\"name\":\"pay.send\"}],\"requires_escalation_for\":[\"pay.send\"]}");
      escalate(h, auth, "invoice:0");
      fast.take(1, WAIT);
      slow.take(1, WAIT); // now held by the slow receiver

      long slowest = 0;
      for (int i = 1; i <= 10; i++) {
        long t0 = System.nanoTime();
        escalate(h, auth, "invoice:" + i);
        slowest = Math.max(slowest, System.nanoTime() - t0);
      }
      List<Received> toFast = fast.take(10, Duration.ofSeconds(3));
      assertThat(toFast).extracting(Received::eventType).containsOnly("escalation.created");
      assertThat(Duration.ofNanos(slowest)).isLessThan(Duration.ofSeconds(1));
      // The slow receiver holds at most its bound of attempts at once.
      assertThat(slow.calls())
          .isLessThanOrEqualTo(DeliveryWorker.Settings.DEFAULT.perWebhookInFlight());
    }
  }

  @Test
  void targetsThatAreNotPublicAreRefusedAtCreationNamingTheRule() throws Exception {
    try (ServerHarness h = server(false);
        WebhookReceiver receiver = WebhookReceiver.ok()) {
      String loopback = receiver.url().replace("http://", "https://");
      Map<String, String> rules =
          Map.of(
              loopback,
              "loopback",
              receiver.url(),
              "loopback",
              "https://10.0.0.1/hook",
              "private",
              "https://169.254.169.254/latest/meta-data",
              "link-local",
              "https://100.64.0.1/hook",
              "carrier-grade NAT",
              "https://[fd00::1]/hook",
              "unique-local",
              "https://[::ffff:127.0.0.1]/hook",
              "loopback",
              "ftp://example.com/hook",
              "https://",
              "https://user:pw@8.8.8.8/hook",
              "user info");
      for (Map.Entry<String, String> e : rules.entrySet()) {
        Resp r =
            h.post(
                "/v1/webhooks",
                h.json("{\"url\":\"" + e.getKey() + "\",\"events\":[\"escalation.created\"]}"));
        assertThat(r.status()).as(e.getKey() + ": " + r.raw()).isEqualTo(400);
        assertThat(r.code()).isEqualTo("invalid_request");
        assertThat(r.fields()).as(e.getKey()).containsExactly("url");
        assertThat(r.body().path("errors").get(0).path("message").asText())
            .as(e.getKey())
            .contains(e.getValue());
      }
      assertThat(h.get("/v1/webhooks").body().path("webhooks")).isEmpty();
      assertThat(receiver.calls()).isZero();
    }
  }

  @Test
  void eventsMustBeKnownAndDistinct() {
    try (ServerHarness h = server(true)) {
      Resp r =
          h.post(
              "/v1/webhooks",
              h.json(
                  "{\"url\":\"http://127.0.0.1:9/h\",\"events\":"
                      + "[\"escalation.created\",\"nope\",\"escalation.created\"]}"));
      assertThat(r.status()).as(r.raw()).isEqualTo(400);
      assertThat(r.fields()).containsExactly("events[1]", "events[2]");
      Resp none =
          h.post("/v1/webhooks", h.json("{\"url\":\"http://127.0.0.1:9/h\",\"events\":[]}"));
      assertThat(none.fields()).containsExactly("events");
    }
  }

  @Test
  void deletingAWebhookStopsItsDeliveriesAndAnUnknownOneIs404() throws Exception {
    try (ServerHarness h = server(true);
        WebhookReceiver receiver = WebhookReceiver.ok()) {
      JsonNode hook = createWebhook(h, receiver.url(), "[\"escalation.created\"]");
      String id = hook.path("id").asText();
      Resp deleted = h.delete("/v1/webhooks/" + id, h.json("{}"));
      assertThat(deleted.status()).as(deleted.raw()).isEqualTo(200);
      assertThat(deleted.body().has("secret")).isFalse();
      assertThat(h.delete("/v1/webhooks/" + id, h.json("{}")).status()).isEqualTo(404);
      assertThat(h.get("/v1/webhooks/" + id + "/deliveries").status()).isEqualTo(404);
      String auth =
          authorize(
              h,
              "{\"scopes\":[{\"name\":\"pay.send\"}],\"requires_escalation_for\":[\"pay.send\"]}");
      escalate(h, auth, "invoice:1");
      assertThat(receiver.next(Duration.ofMillis(500))).isNull();
    }
  }
}
