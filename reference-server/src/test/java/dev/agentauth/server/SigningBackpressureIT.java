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

  /** One workspace's limit where two workspaces at it stay below the backlog of all. */
  private static final int PER_WORKSPACE = 12;

  /** One workspace's limit where two workspaces at it pass the backlog: light below 16 / 8 = 2. */
  private static final int PER_WORKSPACE_OVER = 16;

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
    withHeldSigner(BACKLOG, test);
  }

  /** {@link #withHeldSigner}, with one workspace's backlog limited to {@code perWorkspace}. */
  private static void withHeldSigner(
      int perWorkspace, java.util.function.BiConsumer<ServerHarness, HeldSignerStore> test) {
    TestStores.Opened opened = TestStores.open();
    HeldSignerStore store =
        new HeldSignerStore(opened == null ? new MemoryStore() : opened.store());
    AgentAuthServer.Builder builder =
        AgentAuthServer.builder()
            .store(store)
            .signingLimits(
                new SigningService.Limits(QUEUED, 1 << 20, BACKLOG, perWorkspace, 8, 64));
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
   * A workspace with its limit of receipts unsigned is refused while another one goes on: one
   * workspace cannot stop everyone's checks, and it is refused long before the backlog of all.
   */
  @Test
  void aWorkspaceWithItsOwnLimitUnsignedIsRefusedWhileAnotherGoesOn() {
    withHeldSigner(
        PER_WORKSPACE,
        (h, store) -> {
          String auth = authorizeScopes(h, "email.send");
          String victimKey = h.newWorkspace("ws_other", "pro");
          String attackerKey = h.apiKey();
          h.useApiKey(victimKey);
          String victim = authorizeScopes(h, "email.send");
          h.useApiKey(attackerKey);
          int answered = 0;
          Resp refused = null;
          for (int i = 0; i < 3 * BACKLOG && refused == null; i++) {
            Resp r = check(h, auth, "email.send").send();
            if (r.status() == 200) {
              answered++;
            } else {
              refused = r;
            }
          }
          assertThat(refused).as("the flooding workspace is refused").isNotNull();
          assertThat(refused.status()).as(refused.raw()).isEqualTo(503);
          assertThat(Long.parseLong(refused.header("Retry-After"))).isBetween(1L, 30L);
          // Its authorization's receipt and its checks': refused at its own limit, not before.
          assertThat(answered + 1).isEqualTo(PER_WORKSPACE);
          assertThat(h.server.signingBacklog()).isLessThan(BACKLOG);

          h.useApiKey(victimKey);
          for (int i = 0; i < PER_WORKSPACE - 1; i++) {
            assertThat(check(h, victim, "email.send").send().status()).isEqualTo(200);
          }
          assertThat(check(h, victim, "email.send").send().status())
              .as("the other workspace at its own limit")
              .isEqualTo(503);

          store.release();
          awaitDrained(h);
          assertThat(check(h, victim, "email.send").send().status()).isEqualTo(200);
          h.useApiKey(attackerKey);
          assertThat(check(h, auth, "email.send").send().status()).isEqualTo(200);
        });
  }

  /**
   * Over the backlog of all workspaces, only a lightly loaded workspace (fewer than an eighth of
   * its limit unsigned) is admitted.
   */
  @Test
  void overTheBacklogOnlyLightlyLoadedWorkspacesAreAdmitted() {
    withHeldSigner(
        PER_WORKSPACE_OVER,
        (h, store) -> {
          String firstKey = h.apiKey();
          List<String> keys = List.of(firstKey, h.newWorkspace("ws_b", "pro"));
          for (String key : keys) {
            h.useApiKey(key);
            String auth = authorizeScopes(h, "email.send");
            int status = 200;
            while (status == 200) {
              status = check(h, auth, "email.send").send().status();
            }
            assertThat(status).isEqualTo(503);
          }
          assertThat(h.server.signingBacklog()).isGreaterThanOrEqualTo(BACKLOG);

          h.useApiKey(h.newWorkspace("ws_c", "pro"));
          String light = authorizeScopes(h, "email.send"); // its first receipt unsigned
          assertThat(check(h, light, "email.send").send().status()).isEqualTo(200);
          Resp third = check(h, light, "email.send").send();
          assertThat(third.status()).as("two unsigned: no longer light").isEqualTo(503);

          store.release();
          awaitDrained(h);
          assertThat(check(h, light, "email.send").send().status()).isEqualTo(200);
        });
  }
}
