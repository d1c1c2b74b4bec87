package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.HostileServer.Tally;
import dev.agentauth.server.ServerHarness.Resp;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25 item 6 under load, against the server jar with {@code -Xmx768m}: a full key fills its
 * workspace up to the key cap (the key past it is 400), then uses every key it made while revoking
 * and creating keys in a loop; the bystander's checks keep their p99, and once the attack stops the
 * bystander alone is served as fast again (the idle server does no work per cached key).
 */
class ApiKeyFloodIT {
  private static final String HEAP = "-Xmx768m";
  private static final int CAP = 1_000;
  private static final int THREADS = 8;

  @TempDir Path work;

  private record Key(String id, String secret) {}

  @Test
  void aFullKeyFillingItsWorkspaceWithKeysAndChurningThemLeavesTheBystanderServed()
      throws Exception {
    try (HostileServer s = HostileServer.start(work, HEAP)) {
      String attacker = HostileServer.ATTACKER_KEY;
      List<Key> keys = new CopyOnWriteArrayList<>();
      Tally filling = new Tally();
      // Fill: every thread creates keys until the cap answers 400.
      List<Callable<Void>> fillers = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        fillers.add(
            () -> {
              while (true) {
                long start = System.nanoTime();
                Resp r = s.send("POST", "/v1/api-keys", "{\"role\":\"agent\"}", attacker);
                filling.record(System.nanoTime() - start, r.status());
                if (r.status() == 201) {
                  keys.add(
                      new Key(r.body().path("key_id").asText(), r.body().path("api_key").asText()));
                } else {
                  assertThat(r.status()).as(r.raw()).isEqualTo(400);
                  assertThat(r.body().path("detail").asText())
                      .contains("limit of " + CAP + " keys per workspace");
                  return null;
                }
              }
            });
      }
      Tally victimWhileFilling = s.whileRunning(Duration.ofSeconds(2), fillers);
      // The start-up key holds one place.
      assertThat(keys).as(filling.toString()).hasSize(CAP - 1);
      assertThat(filling.percentile(1.0)).as(filling.toString()).isLessThan(Duration.ofSeconds(5));
      s.assertBystanderServed(
          victimWhileFilling,
          HostileServer.BYSTANDER_P99,
          "victim while filling: " + victimWhileFilling);

      // Churn: use every key made, and revoke and replace one key in ten.
      Tally churn = new Tally();
      AtomicInteger toRevoke = new AtomicInteger();
      long deadline = System.nanoTime() + HostileServer.ATTACK.toNanos();
      List<Callable<Void>> churners = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        churners.add(
            () -> {
              int i = thread;
              while (System.nanoTime() < deadline) {
                String[] req;
                String key;
                if (i % 10 == 9) {
                  Key victimKey = keys.get(toRevoke.getAndIncrement() % keys.size());
                  req = new String[] {"DELETE", "/v1/api-keys/" + victimKey.id()};
                  key = attacker;
                } else if (i % 10 == 8) {
                  req = new String[] {"POST", "/v1/api-keys"};
                  key = attacker;
                } else {
                  req = new String[] {"GET", "/v1/api-keys/current"};
                  key = keys.get(i % keys.size()).secret();
                }
                long start = System.nanoTime();
                try {
                  Resp r =
                      s.send(
                          req[0],
                          req[1],
                          req[0].equals("POST") ? "{\"role\":\"agent\"}" : null,
                          key);
                  churn.record(System.nanoTime() - start, r.status());
                  if (r.status() == 201) {
                    keys.add(
                        new Key(
                            r.body().path("key_id").asText(), r.body().path("api_key").asText()));
                  }
                } catch (IOException e) {
                  churn.unexpected.add(e.toString());
                  churn.record(System.nanoTime() - start, -1);
                }
                i += THREADS;
              }
              return null;
            });
      }
      Tally victim = s.whileRunning(HostileServer.ATTACK, churners);
      // 200 a key's record, 401 a revoked key, 201/400 creation under the cap, 200/409 revocation.
      s.assertSurvived(churn, victim, 200, 201, 400, 401, 409);
      assertThat(churn.statuses.get(401)).as(churn.toString()).isNotNull();

      // The cap still holds after the churn.
      while (true) {
        Resp r = s.send("POST", "/v1/api-keys", "{\"role\":\"agent\"}", attacker);
        if (r.status() == 400) {
          break;
        }
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
      }

      // Recovery: the bystander alone, right after the attack.
      Tally after = s.whileRunning(Duration.ofSeconds(3), List.<Callable<Void>>of(() -> null));
      s.assertBystanderServed(after, HostileServer.BYSTANDER_P99, "victim after: " + after);
    }
  }
}
