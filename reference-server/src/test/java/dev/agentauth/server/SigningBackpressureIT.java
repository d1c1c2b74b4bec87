package dev.agentauth.server;

import static dev.agentauth.server.CheckFixtures.authorizeScopes;
import static dev.agentauth.server.CheckFixtures.check;
import static dev.agentauth.server.CheckFixtures.receiptId;
import static dev.agentauth.server.CheckFixtures.revoke;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.signing.SigningService;
import dev.agentauth.server.store.HeldSignerStore;
import dev.agentauth.server.store.MemoryStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * When signing falls behind by the configured backlog, checks and new authorizations answer 503
 * {@code unavailable} with {@code Retry-After} at once, and succeed again once the backlog drains;
 * every receipt answered is signed, once.
 */
class SigningBackpressureIT {
  private static final int BACKLOG = 30;
  private static final int QUEUED = 8;

  /** The value of an unlabelled metric in the Prometheus text. */
  private static double metric(ServerHarness h, String name) {
    Resp r = h.get("/metrics");
    assertThat(r.status()).isEqualTo(200);
    for (String line : r.raw().split("\n")) {
      if (line.startsWith(name + " ")) {
        return Double.parseDouble(line.substring(name.length() + 1).trim());
      }
    }
    throw new AssertionError(name + " not in /metrics");
  }

  private static void awaitDrained(ServerHarness h) {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (h.server.signingBacklog() > 0) {
      assertThat(System.nanoTime()).as("the backlog drains").isLessThan(deadline);
      Thread.onSpinWait();
    }
  }

  /**
   * Runs {@code test} against a server on the suite's store whose signer can be held back, with a
   * backlog limit of {@link #BACKLOG}, and cleans the store up after.
   */
  private static void withHeldSigner(
      java.util.function.BiConsumer<ServerHarness, HeldSignerStore> test) {
    TestStores.Opened opened = TestStores.open();
    HeldSignerStore store =
        new HeldSignerStore(opened == null ? new MemoryStore() : opened.store());
    AgentAuthServer.Builder builder =
        AgentAuthServer.builder()
            .store(store)
            .signingLimits(new SigningService.Limits(QUEUED, 1 << 20, BACKLOG));
    try (ServerHarness h = ServerHarness.start(builder)) {
      test.accept(h, store);
    } finally {
      if (opened != null) {
        opened.cleanup().run();
      }
    }
  }

  @Test
  void checksAnswer503WithRetryAfterWhileSigningLagsAndSucceedAgainOnceItDrains() {
    withHeldSigner(
        (h, store) -> {
          String auth = authorizeScopes(h, "email.send");
          String other = authorizeScopes(h, "email.send");
          List<String> answered = new ArrayList<>();
          Resp refused = null;
          long refusedNanos = 0;
          for (int i = 0; i < 3 * BACKLOG && refused == null; i++) {
            long t0 = System.nanoTime();
            Resp r = check(h, auth, "email.send").send();
            if (r.status() == 200) {
              answered.add(receiptId(r.body().path("results").path("email.send")));
            } else {
              refused = r;
              refusedNanos = System.nanoTime() - t0;
            }
          }

          assertThat(refused).as("a check refused once the backlog reached its limit").isNotNull();
          assertThat(refused.status()).as(refused.raw()).isEqualTo(503);
          assertThat(refused.code()).isEqualTo("unavailable");
          assertThat(Long.parseLong(refused.header("Retry-After"))).isBetween(1L, 30L);
          assertThat(TimeUnit.NANOSECONDS.toMillis(refusedNanos)).isLessThan(1_000);
          // Two authorizations' receipts and the checks': refused at the limit, not before.
          assertThat(answered.size() + 2).isBetween(BACKLOG - 1, BACKLOG + 1);
          assertThat(h.server.signingBacklog()).isGreaterThanOrEqualTo(BACKLOG);
          assertThat(metric(h, "agentauth_signing_backlog")).isGreaterThanOrEqualTo(BACKLOG);
          assertThat(metric(h, "agentauth_signing_queued")).isLessThanOrEqualTo(QUEUED);
          assertThat(check(h, auth, "email.send").send().status()).isEqualTo(503);
          Resp create =
              h.post(
                  "/v1/authorizations",
                  h.json(
                      "{\"user_id\":\"u\",\"agent_id\":\"a\",\"scopes\":[{\"name\":\"x\"}],"
                          + "\"expires_at\":\""
                          + CheckFixtures.EXPIRES
                          + "\"}"));
          assertThat(create.status()).as(create.raw()).isEqualTo(503);
          // Revocation is never refused: it must work while an attacker floods checks.
          revoke(h, other);
          assertThat(store.held()).as("the signer was held back").isPositive();

          store.release();
          awaitDrained(h);

          answered.add(receiptId(check(h, auth, "email.send").result()));
          awaitDrained(h);
          // Every receipt answered is signed and verifies; each signature was stored once.
          assertThat(h.verifyChain(auth)).isEqualTo(answered.size() + 1);
          assertThat(metric(h, "agentauth_receipts_signed_total"))
              .isEqualTo(answered.size() + 3.0); // + two creations and a revocation
        });
  }

  /**
   * Over the backlog, the workspace that made it is refused while another one goes on, until it has
   * an eighth of the backlog unsigned itself: one workspace cannot stop everyone's checks.
   */
  @Test
  void overTheBacklogOnlyWorkspacesHoldingTheirShareOfItAreRefused() {
    withHeldSigner(
        (h, store) -> {
          String auth = authorizeScopes(h, "email.send");
          String victimKey = h.newWorkspace("ws_other", "pro");
          String attackerKey = h.apiKey();
          h.useApiKey(victimKey);
          String victim = authorizeScopes(h, "email.send");
          h.useApiKey(attackerKey);
          int status = 200;
          for (int i = 0; i < 3 * BACKLOG && status == 200; i++) {
            status = check(h, auth, "email.send").send().status();
          }
          assertThat(status).as("the flooding workspace is refused").isEqualTo(503);

          h.useApiKey(victimKey);
          // The other workspace has one receipt unsigned (its authorization): a share is 30 / 8 =
          // 3.
          assertThat(check(h, victim, "email.send").send().status()).isEqualTo(200);
          assertThat(check(h, victim, "email.send").send().status()).isEqualTo(200);
          Resp third = check(h, victim, "email.send").send();
          assertThat(third.status()).as(third.raw()).isEqualTo(503);
          h.useApiKey(attackerKey);
          assertThat(check(h, auth, "email.send").send().status()).isEqualTo(503);

          store.release();
          awaitDrained(h);
          h.useApiKey(victimKey);
          assertThat(check(h, victim, "email.send").send().status()).isEqualTo(200);
        });
  }
}
