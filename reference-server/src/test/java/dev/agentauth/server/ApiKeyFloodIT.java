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

  private static Key key(Resp created) {
    return new Key(created.body().path("key_id").asText(), created.body().path("api_key").asText());
  }

  @Test
  void aFullKeyFillingItsWorkspaceWithKeysAndChurningThemLeavesTheBystanderServed()
      throws Exception {
    try (HostileServer s = HostileServer.start(work, HEAP)) {
      String attacker = HostileServer.ATTACKER_KEY;
      List<Key> keys = new CopyOnWriteArrayList<>();
      Tally attack = new Tally();
      AtomicInteger filled = new AtomicInteger();
      AtomicInteger toRevoke = new AtomicInteger();
      long deadline = System.nanoTime() + HostileServer.ATTACK.toNanos();
      List<Callable<Void>> attackers = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        attackers.add(
            () -> {
              // Fill: create keys until the cap answers 400.
              while (true) {
                long start = System.nanoTime();
                Resp r = s.send("POST", "/v1/api-keys", "{\"role\":\"agent\"}", attacker);
                attack.record(System.nanoTime() - start, r.status());
                if (r.status() == 201) {
                  keys.add(key(r));
                } else {
                  assertThat(r.status()).as(r.raw()).isEqualTo(400);
                  assertThat(r.body().path("detail").asText())
                      .contains("limit of " + CAP + " keys per workspace");
                  break;
                }
              }
              if (filled.incrementAndGet() == THREADS) {
                System.out.println(
                    "filled to the cap after " + attack.nanos.size() + " requests: " + attack);
              }
              // Churn: use the keys made, and revoke and replace one key in ten.
              int i = thread;
              while (System.nanoTime() < deadline) {
                String method;
                String path;
                String key;
                if (i % 10 == 9) {
                  method = "DELETE";
                  path = "/v1/api-keys/" + keys.get(toRevoke.getAndIncrement() % keys.size()).id();
                  key = attacker;
                } else if (i % 10 == 8) {
                  method = "POST";
                  path = "/v1/api-keys";
                  key = attacker;
                } else {
                  method = "GET";
                  path = "/v1/api-keys/current";
                  key = keys.get(i % keys.size()).secret();
                }
                long start = System.nanoTime();
                try {
                  Resp r =
                      s.send(
                          method, path, method.equals("POST") ? "{\"role\":\"agent\"}" : null, key);
                  attack.record(System.nanoTime() - start, r.status());
                  if (r.status() == 201) {
                    keys.add(key(r));
                  }
                } catch (IOException e) {
                  attack.unexpected.add(e.toString());
                  attack.record(System.nanoTime() - start, -1);
                }
                i += THREADS;
              }
              return null;
            });
      }
      Tally victim = s.whileRunning(HostileServer.ATTACK, attackers);
      // 201/400 creation under the cap, 200 a key's record or a revocation, 401 a revoked key,
      // 409 a key revoked twice.
      s.assertSurvived(attack, victim, 200, 201, 400, 401, 409);
      assertThat(filled.get()).isEqualTo(THREADS);
      // The first key revoked stays refused.
      assertThat(toRevoke.get()).as(attack.toString()).isPositive();
      assertThat(s.send("GET", "/v1/api-keys/current", null, keys.get(0).secret()).status())
          .isEqualTo(401);
      assertThat(keys.size()).isGreaterThanOrEqualTo(CAP - 1);

      // The cap still holds after the churn: the live keys are exactly the cap.
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
