package dev.agentauth.server;

import static dev.agentauth.server.CheckFixtures.authorize;
import static dev.agentauth.server.CheckFixtures.check;
import static dev.agentauth.server.CheckFixtures.outcome;
import static dev.agentauth.server.CheckFixtures.resolve;
import static dev.agentauth.server.CheckFixtures.revoke;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.f4b6a3.ulid.UlidCreator;
import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.domain.EscalationRow;
import dev.agentauth.server.store.CheckTx;
import dev.agentauth.server.store.MemoryStore;
import dev.agentauth.server.store.Store;
import dev.agentauth.server.store.Tx;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Revocation's cost does not grow with the authorization's pending escalations: it writes none of
 * them, and each still reads as {@code expired} (decisions §3, §6) through GET, the {@code status}
 * list filters and resolve.
 */
class RevocationCostIT {
  private static final int ESCALATIONS = 20_000;
  private static final String ESCALATED =
      "{\"scopes\":[{\"name\":\"pay.send\"}],\"requires_escalation_for\":[\"pay.send\"]}";

  private TestStores.Opened opened;
  private CountingStore store;
  private ServerHarness h;

  @BeforeEach
  void start() {
    opened = TestStores.open();
    store = new CountingStore(opened == null ? new MemoryStore() : opened.store());
    h = ServerHarness.start(AgentAuthServer.builder().store(store));
  }

  @AfterEach
  void stop() {
    h.close();
    if (opened != null) {
      opened.cleanup().run();
    }
  }

  /**
   * Inserts {@code count} pending escalations of {@code authorizationId} straight into the store.
   */
  private List<String> pendingEscalations(String authorizationId, int count) {
    Instant now = h.clock.instant();
    List<String> ids = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      ids.add("esc_" + UlidCreator.getMonotonicUlid().toString());
    }
    store.delegate.inTransaction(
        tx -> {
          for (int i = 0; i < count; i++) {
            tx.insertEscalation(
                new EscalationRow(
                    h.workspaceId(),
                    ids.get(i),
                    authorizationId,
                    "pay.send",
                    "invoice:" + i,
                    dev.agentauth.model.EscalationStatus.Known.PENDING,
                    null,
                    now,
                    now.plus(Duration.ofHours(24)),
                    null,
                    null,
                    null,
                    null,
                    null));
          }
          return null;
        });
    return ids;
  }

  /** The Tx calls of the revocation of {@code authorizationId}'s transaction. */
  private List<Call> revokeCounted(String authorizationId) {
    store.calls.clear();
    store.counting = true;
    revoke(h, authorizationId);
    store.counting = false;
    List<List<Call>> revocations =
        store.calls.stream()
            .filter(tx -> tx.stream().anyMatch(c -> c.method().equals("updateAuthorization")))
            .toList();
    assertThat(revocations).hasSize(1);
    return revocations.get(0);
  }

  private Set<String> listAll(String status) {
    Set<String> ids = new HashSet<>();
    String cursor = null;
    do {
      Resp r =
          h.get(
              "/v1/escalations?status="
                  + status
                  + "&limit=100"
                  + (cursor == null ? "" : "&cursor=" + cursor));
      assertThat(r.status()).as(r.raw()).isEqualTo(200);
      for (JsonNode e : r.body().path("escalations")) {
        assertThat(ids.add(e.path("escalation_id").asText())).isTrue();
        assertThat(e.path("status").asText()).isEqualTo(status);
      }
      cursor = r.body().path("has_more").asBoolean() ? r.body().path("next_cursor").asText() : null;
    } while (cursor != null);
    return ids;
  }

  @Test
  void revocationWritesNoEscalationWhateverTheirNumber() {
    String few = authorize(h, ESCALATED);
    assertThat(outcome(check(h, few, "pay.send").resource("invoice:x").result()))
        .isEqualTo("escalate/escalation_required");
    List<Call> small = revokeCounted(few);

    String many = authorize(h, ESCALATED);
    pendingEscalations(many, ESCALATIONS);
    assertThat(h.get("/v1/escalations?status=pending&limit=1").body().path("has_more").asBoolean())
        .isTrue();
    List<Call> large = revokeCounted(many);

    // The same statements, each touching at most one row, with 1 or 20,000 pending escalations.
    assertThat(large.stream().map(Call::method).toList())
        .isEqualTo(small.stream().map(Call::method).toList());
    assertThat(large).allSatisfy(c -> assertThat(c.rowsTouched()).isLessThanOrEqualTo(1));
  }

  @Test
  void everyPendingEscalationOfARevokedAuthorizationReadsAsExpired() {
    String id = authorize(h, ESCALATED);
    List<String> ids = pendingEscalations(id, ESCALATIONS);
    h.clock.advance(Duration.ofSeconds(5));
    revoke(h, id);
    String revokedAt = h.get("/v1/authorizations/" + id).body().path("revoked_at").asText();

    for (String e : List.of(ids.get(0), ids.get(ESCALATIONS / 2), ids.get(ESCALATIONS - 1))) {
      JsonNode got = h.get("/v1/escalations/" + e).body();
      assertThat(got.path("status").asText()).isEqualTo("expired");
      assertThat(got.path("expires_at").asText()).isEqualTo(revokedAt);
      Resp r = resolve(h, e, "approved", "approver_7");
      assertThat(r.status()).as(r.raw()).isEqualTo(409);
      assertThat(r.code()).isEqualTo("escalation_conflict");
    }
    assertThat(listAll("pending")).isEmpty();
    assertThat(listAll("expired")).containsExactlyInAnyOrderElementsOf(ids);
  }

  /** One Tx call: its method and, for a bulk statement (an int result), the rows it touched. */
  record Call(String method, int rowsTouched) {}

  /** A store that records the Tx calls of each transaction while {@link #counting}. */
  static final class CountingStore implements Store {
    final Store delegate;
    final List<List<Call>> calls = new CopyOnWriteArrayList<>();
    volatile boolean counting;

    CountingStore(Store delegate) {
      this.delegate = delegate;
    }

    private <T> Work<T> counted(Work<T> work) {
      return tx -> work.run(counting ? recording(Tx.class, tx) : tx);
    }

    private <T> CheckWork<T> counted(CheckWork<T> work) {
      return tx -> work.run(counting ? recording(CheckTx.class, tx) : tx);
    }

    /** {@code tx} with every call recorded as one transaction's calls. */
    private <X> X recording(Class<X> type, X tx) {
      List<Call> mine = new CopyOnWriteArrayList<>();
      calls.add(mine);
      InvocationHandler handler =
          (proxy, method, args) -> {
            try {
              Object result = method.invoke(tx, args);
              mine.add(new Call(method.getName(), result instanceof Integer n ? n : 0));
              return result;
            } catch (InvocationTargetException e) {
              throw e.getCause();
            }
          };
      return type.cast(
          Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
    }

    @Override
    public <T> T inTransaction(Work<T> work) {
      return delegate.inTransaction(counted(work));
    }

    @Override
    public <T> T inGroupedTransaction(GroupKey key, CheckWork<T> work) {
      return delegate.inGroupedTransaction(key, counted(work));
    }

    @Override
    public <T> T read(Work<T> work) {
      return delegate.read(counted(work));
    }

    @Override
    public Duration batchLinger() {
      return delegate.batchLinger();
    }

    @Override
    public boolean isReachable() {
      return delegate.isReachable();
    }

    @Override
    public String describe() {
      return delegate.describe();
    }

    @Override
    public void close() {
      delegate.close();
    }
  }
}
