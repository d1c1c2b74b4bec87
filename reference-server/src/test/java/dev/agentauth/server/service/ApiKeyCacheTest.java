package dev.agentauth.server.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.model.ApiKey;
import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.model.CreateApiKeyRequest;
import dev.agentauth.server.store.MemoryStore;
import dev.agentauth.server.store.Store;
import dev.agentauth.server.store.Tx;
import dev.agentauth.server.store.WorkspaceRow;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The API key cache: the refresh's store work does not grow with the number of cached keys, the
 * cache stays within its size, and an evicted key is read from the store again (revoked or not).
 */
class ApiKeyCacheTest {
  private static final String WS = "ws_a";
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-11-22T10:00:00Z"), ZoneOffset.UTC);

  /** A store that counts the transaction calls made through it and the rows they return. */
  static final class CountingStore implements Store {
    final Store delegate;
    final AtomicLong calls = new AtomicLong();
    final AtomicLong rows = new AtomicLong();

    CountingStore(Store delegate) {
      this.delegate = delegate;
    }

    void reset() {
      calls.set(0);
      rows.set(0);
    }

    private Tx counting(Tx tx) {
      return (Tx)
          Proxy.newProxyInstance(
              Tx.class.getClassLoader(),
              new Class<?>[] {Tx.class},
              (proxy, method, args) -> {
                calls.incrementAndGet();
                Object result;
                try {
                  result = method.invoke(tx, args);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
                if (result instanceof Collection<?> c) {
                  rows.addAndGet(c.size());
                } else if (result instanceof Optional<?> o && o.isPresent()) {
                  rows.incrementAndGet();
                }
                return result;
              });
    }

    @Override
    public <T> T inTransaction(Work<T> work) {
      return delegate.inTransaction(tx -> work.run(counting(tx)));
    }

    @Override
    public <T> T read(Work<T> work) {
      return delegate.read(tx -> work.run(counting(tx)));
    }

    @Override
    public boolean isReachable() {
      return delegate.isReachable();
    }

    @Override
    public String describe() {
      return "counting " + delegate.describe();
    }

    @Override
    public void close() {
      delegate.close();
    }
  }

  private static ApiKeyOps ops(Store store, int cacheSize) {
    return new ApiKeyOps(
        new ServiceContext(store, CLOCK, null, ReceiptQuotas.Limits.UNLIMITED), 100_000, cacheSize);
  }

  private static List<String> createKeys(Store store, ApiKeyOps ops, int n) {
    List<String> secrets = new ArrayList<>();
    store.inTransaction(
        tx -> {
          for (int i = 0; i < n; i++) {
            ApiKey k =
                ops.create(tx, WS, new CreateApiKeyRequest(ApiKeyRole.AGENT, null, null, null));
            secrets.add(k.apiKey());
          }
          return null;
        });
    return secrets;
  }

  private static MemoryStore storeWithWorkspace() {
    MemoryStore store = new MemoryStore();
    store.inTransaction(tx -> tx.insertWorkspace(new WorkspaceRow(WS, "pro", CLOCK.instant())));
    return store;
  }

  /** The store calls and rows of one idle refresh with {@code cached} keys in the cache. */
  private static long[] idleRefresh(int cached) {
    CountingStore store = new CountingStore(storeWithWorkspace());
    ApiKeyOps ops = ops(store, 20_000);
    List<String> secrets = createKeys(store, ops, cached);
    secrets.forEach(ops::authenticate);
    assertThat(ops.cachedKeys()).isEqualTo(cached);
    ops.refresh(); // records the first uses
    store.reset();
    ops.refresh();
    return new long[] {store.calls.get(), store.rows.get()};
  }

  @Test
  void anIdleRefreshDoesTheSameStoreWorkWithTenThousandCachedKeysAsWithTen() {
    long[] ten = idleRefresh(10);
    long[] tenThousand = idleRefresh(10_000);
    assertThat(tenThousand).containsExactly(ten);
    // One range read of the revocation log, which finds nothing new.
    assertThat(ten).containsExactly(1, 0);
  }

  @Test
  void aRefreshReadsOnlyTheRevocationsSinceTheLastOneAndAppliesThem() {
    CountingStore store = new CountingStore(storeWithWorkspace());
    ApiKeyOps here = ops(store, 20_000);
    ApiKeyOps otherInstance = ops(store, 20_000);
    List<String> secrets = createKeys(store, here, 1_000);
    secrets.forEach(here::authenticate);
    here.refresh();
    here.refresh();
    Caller revokedOne = otherInstance.authenticate(secrets.get(7));
    otherInstance.revoke(WS, revokedOne.keyId());
    // Not yet seen here: the revocation was made by the other instance.
    assertThat(here.authenticate(secrets.get(7)).keyId()).isEqualTo(revokedOne.keyId());

    store.reset();
    here.refresh();
    assertThat(store.rows.get()).isEqualTo(1);
    assertThatThrownBy(() -> here.authenticate(secrets.get(7)))
        .isInstanceOf(ServiceException.class)
        .hasMessageContaining("revoked");
    assertThat(here.authenticate(secrets.get(8)).keyId()).isNotEqualTo(revokedOne.keyId());
    store.reset();
    here.refresh();
    assertThat(store.rows.get()).isZero();
  }

  @Test
  void theCacheStaysWithinItsSizeAndAnEvictedKeyIsReadAgainRevokedOrNot() {
    CountingStore store = new CountingStore(storeWithWorkspace());
    ApiKeyOps ops = ops(store, 10);
    ApiKeyOps otherInstance = ops(store, 10);
    List<String> secrets = createKeys(store, ops, 200);
    // Use the first two keys often, so that the cache keeps them over keys used once.
    for (String s : secrets) {
      ops.authenticate(secrets.get(0));
      ops.authenticate(secrets.get(1));
      ops.authenticate(s);
    }
    assertThat(ops.cachedKeys()).isLessThanOrEqualTo(10);
    store.reset();
    ops.authenticate(secrets.get(0));
    ops.authenticate(secrets.get(1));
    assertThat(store.calls.get()).isZero();

    // Keys used once were evicted: they still authenticate, through a store read. Which ones
    // the cache keeps depends on its admission policy (seeded at random), so ask it.
    List<String> evictedKeys =
        secrets.subList(2, secrets.size()).stream().filter(s -> !ops.caches(s)).toList();
    assertThat(evictedKeys).hasSizeGreaterThanOrEqualTo(198 - 10);
    String evicted = evictedKeys.get(0);
    store.reset();
    Caller caller = ops.authenticate(evicted);
    assertThat(caller.workspaceId()).isEqualTo(WS);
    assertThat(store.calls.get()).isPositive();

    // An evicted key revoked elsewhere is refused at once, without waiting for a refresh.
    String revoked = evictedKeys.get(evictedKeys.size() - 1);
    assertThat(ops.caches(revoked)).isFalse();
    otherInstance.revoke(WS, otherInstance.authenticate(revoked).keyId());
    assertThatThrownBy(() -> ops.authenticate(revoked))
        .isInstanceOf(ServiceException.class)
        .hasMessageContaining("revoked");

    // An unknown key is refused and not cached: it cannot push the known keys out.
    long before = ops.cachedKeys();
    for (int i = 0; i < 50; i++) {
      String unknown = "sk_" + String.format("%043d", i);
      assertThatThrownBy(() -> ops.authenticate(unknown)).isInstanceOf(ServiceException.class);
    }
    assertThat(ops.cachedKeys()).isEqualTo(before);
  }
}
