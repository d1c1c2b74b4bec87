package dev.agentauth.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.server.store.WebhookTx.Attempt;
import dev.agentauth.server.store.WebhookTx.Claimed;
import dev.agentauth.server.store.WebhookTx.Outbox;
import dev.agentauth.server.store.jdbc.JdbcStore;
import dev.agentauth.server.store.jdbc.MasterKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The webhook outbox's retention and measures on every store ({@link
 * WebhookTx#pruneWebhookDeliveries}, {@link WebhookTx#webhookOutbox}): finished deliveries older
 * than the cutoff are deleted in batches of at most the limit, pending ones never, whatever their
 * age; a prune rolls back with its transaction; the outbox counts the pending deliveries whose
 * event has happened.
 */
class WebhookOutboxStoreIT {
  private static final String WS = "ws_a";
  private static final String TYPE = "escalation.created";
  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00.000Z");
  private static final Instant LONG_AGO = T0.minus(Duration.ofDays(30));
  private static final String OWNER = "worker_test";

  @TempDir Path dir;
  private Store store;
  private String postgresUrl;

  @AfterEach
  void close() {
    if (store != null) {
      store.close();
    }
    if (postgresUrl != null) {
      PostgresTestDatabase.dropSchema(postgresUrl);
    }
  }

  private Store open(String kind) {
    switch (kind) {
      case "memory":
        store = new MemoryStore();
        break;
      case "sqlite":
        store = JdbcStore.sqlite(dir.resolve("t.db"), MasterKey.random());
        break;
      default:
        PostgresTestDatabase.assumeAvailable();
        postgresUrl = PostgresTestDatabase.freshSchemaUrl();
        store = JdbcStore.postgres(postgresUrl, MasterKey.random());
    }
    return store;
  }

  private void write(Consumer<Tx> work) {
    store.inTransaction(
        tx -> {
          work.accept(tx);
          return null;
        });
  }

  private void webhook(String id) {
    write(
        tx ->
            tx.insertWebhook(
                new WebhookRow(
                    WS,
                    id,
                    "https://hooks.example/" + id,
                    List.of(TYPE),
                    ("whsec_" + id).getBytes(StandardCharsets.UTF_8),
                    LONG_AGO)));
  }

  private static String eventId(int n) {
    return String.format("evt_%03d", n);
  }

  /** Event {@code n} of {@code createdAt}, first due at {@code dueAt}, to every webhook. */
  private void event(int n, Instant createdAt, Instant dueAt) {
    write(
        tx ->
            tx.enqueueWebhookEvent(
                new WebhookEvent(
                    WS,
                    eventId(n),
                    TYPE,
                    createdAt,
                    "{\"n\":" + n + "}",
                    "auth_1",
                    "esc_" + n,
                    dueAt)));
  }

  private void event(int n, Instant createdAt) {
    event(n, createdAt, createdAt);
  }

  /** Leases every delivery due by {@code dueBy}. */
  private List<Claimed> claimDue(Instant dueBy) {
    return store.inTransaction(
        tx -> tx.claimWebhookDeliveries(dueBy, T0, T0.plusSeconds(60), OWNER, Set.of(), 100));
  }

  /** Ends the leased delivery of event {@code n} to {@code webhookId} with {@code status}. */
  private void end(String webhookId, int n, String status) {
    boolean counted = !"cancelled".equals(status);
    Attempt a =
        new Attempt(
            webhookId,
            eventId(n),
            OWNER,
            T0,
            counted,
            counted ? ("delivered".equals(status) ? 204 : 500) : null,
            "delivered".equals(status) || !counted ? null : "answered 500",
            status,
            null);
    assertThat(store.inTransaction((Tx tx) -> tx.recordWebhookAttempt(a))).isTrue();
  }

  private List<String> log(String webhookId) {
    return store
        .read(tx -> tx.listWebhookDeliveries(WS, webhookId, PageRequest.first(100)))
        .items()
        .stream()
        .map(d -> d.eventId() + "=" + d.status())
        .toList();
  }

  private int prune(Instant eventBefore, int limit) {
    return store.inTransaction(tx -> tx.pruneWebhookDeliveries(eventBefore, limit));
  }

  private Outbox outbox(Instant now, long atMost) {
    return store.read(tx -> tx.webhookOutbox(now, atMost));
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "sqlite", "postgres"})
  void finishedDeliveriesOlderThanTheCutoffGoPendingOnesStayWhateverTheirAge(String kind) {
    open(kind);
    webhook("wh_1");
    webhook("wh_2");
    Instant cutoff = T0.minus(Duration.ofDays(7));
    event(1, cutoff.minus(Duration.ofDays(2))); // old: delivered to both
    event(2, cutoff.minusMillis(1)); // old: failed to one, cancelled to the other
    event(3, cutoff); // exactly at the cutoff: not older, kept
    event(4, cutoff.minus(Duration.ofDays(3)), T0.plus(Duration.ofDays(1))); // old, still pending
    assertThat(claimDue(T0)).hasSize(6);
    for (String w : List.of("wh_1", "wh_2")) {
      end(w, 1, "delivered");
      end(w, 3, "delivered");
    }
    end("wh_1", 2, "failed");
    end("wh_2", 2, "cancelled");

    assertThat(prune(cutoff, 100)).isEqualTo(4);

    assertThat(log("wh_1")).containsExactly(eventId(4) + "=pending", eventId(3) + "=delivered");
    assertThat(log("wh_2")).containsExactly(eventId(4) + "=pending", eventId(3) + "=delivered");
    assertThat(prune(cutoff, 100)).isZero();
    // However old, a pending delivery is never deleted.
    assertThat(prune(T0.plus(Duration.ofDays(365)), 100)).isEqualTo(2);
    assertThat(log("wh_1")).containsExactly(eventId(4) + "=pending");
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "sqlite", "postgres"})
  void aPruneDeletesAtMostItsLimitAndRollsBackWithItsTransaction(String kind) {
    open(kind);
    webhook("wh_1");
    for (int n = 1; n <= 5; n++) {
      event(n, LONG_AGO.plusSeconds(n));
    }
    assertThat(claimDue(T0)).hasSize(5);
    for (int n = 1; n <= 5; n++) {
      end("wh_1", n, "delivered");
    }
    RuntimeException failure = new IllegalStateException("boom");
    assertThatThrownBy(
            () ->
                store.inTransaction(
                    tx -> {
                      assertThat(tx.pruneWebhookDeliveries(T0, 100)).isEqualTo(5);
                      throw failure;
                    }))
        .isSameAs(failure);
    assertThat(log("wh_1")).hasSize(5);

    assertThat(prune(T0, 2)).isEqualTo(2);
    assertThat(prune(T0, 2)).isEqualTo(2);
    assertThat(log("wh_1")).hasSize(1);
    assertThat(prune(T0, 2)).isEqualTo(1);
    assertThat(prune(T0, 2)).isZero();
    assertThat(log("wh_1")).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "sqlite", "postgres"})
  void theOutboxCountsPendingDeliveriesWhoseEventHappened(String kind) {
    open(kind);
    assertThat(outbox(T0, 100)).isEqualTo(new Outbox(0, null));
    webhook("wh_1");
    event(1, T0.minusSeconds(30)); // pending, the oldest
    event(2, T0.minusSeconds(20)); // delivered: not counted
    event(3, T0.minusSeconds(10)); // pending, being retried
    event(4, T0.plus(Duration.ofDays(1))); // an expiry to come: not counted yet
    List<Claimed> due = claimDue(T0);
    assertThat(due).extracting(c -> c.delivery().eventId()).contains(eventId(2), eventId(3));
    end("wh_1", 2, "delivered");
    Attempt retry =
        new Attempt(
            "wh_1",
            eventId(3),
            OWNER,
            T0,
            true,
            503,
            "answered 503",
            "pending",
            T0.plusSeconds(10));
    assertThat(store.inTransaction((Tx tx) -> tx.recordWebhookAttempt(retry))).isTrue();

    assertThat(outbox(T0, 100)).isEqualTo(new Outbox(2, T0.minusSeconds(30)));
    assertThat(outbox(T0, 1).pending()).isEqualTo(1);
    assertThat(outbox(T0.minusSeconds(25), 100)).isEqualTo(new Outbox(1, T0.minusSeconds(30)));
    assertThat(outbox(T0.plus(Duration.ofDays(2)), 100))
        .isEqualTo(new Outbox(3, T0.minusSeconds(30)));

    // Deleting the webhook takes its deliveries out of the outbox.
    write(tx -> assertThat(tx.deleteWebhook(WS, "wh_1")).isTrue());
    assertThat(outbox(T0.plus(Duration.ofDays(2)), 100)).isEqualTo(new Outbox(0, null));
    assertThat(prune(T0.plus(Duration.ofDays(365)), 100)).isZero();
  }
}
