package dev.agentauth.server.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.domain.ScopeRule;
import dev.agentauth.server.store.CheckTx.CheckTarget;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentMap;
import org.junit.jupiter.api.Test;

/** The decoded-JSON and check-target caches are bounded by estimated bytes, not by entries. */
class BoundedCachesTest {
  private static final String WS = "ws_cache";
  private static final Instant T = Instant.parse("2026-11-22T10:00:00Z");

  /** An authorization whose scope carries {@code initiators} initiators of 256 characters. */
  private static AuthorizationRow row(String id, int initiators) {
    List<String> names = Collections.nCopies(initiators, "i".repeat(256));
    return new AuthorizationRow(
        WS,
        id,
        "user-1",
        "agent-1",
        null,
        List.of(new ScopeRule("mail.send", null, null, names)),
        List.of(),
        List.of(),
        Map.of(),
        T.plusSeconds(3600),
        null,
        0,
        T,
        null,
        null);
  }

  private static CheckTarget target(AuthorizationRow row) {
    return new CheckTarget(Optional.of(row), false);
  }

  @Test
  void checkTargetCacheHoldsLargeAuthorizationsOnlyUpToItsByteBound() {
    CheckTargetCache cache = new CheckTargetCache();
    // 1,000 authorizations of ~256 KiB of initiators each: ~256 MiB by the estimate, four times
    // the bound (the rows share one list, so the test itself stays small).
    AuthorizationRow big = row("az_0", 500);
    long each = CheckTargetCache.weight(new AuthKey(WS, "az_0"), big);
    assertThat(each).isGreaterThan(256_000);
    for (int i = 0; i < 1_000; i++) {
      AuthorizationRow r = row("az_" + i, 500);
      cache.put(null, target(r));
    }
    long kept = 0;
    for (int i = 0; i < 1_000; i++) {
      if (cache.get(WS, "az_" + i, null) != null) {
        kept++;
      }
    }
    assertThat(kept * each).isLessThanOrEqualTo(CheckTargetCache.MAX_BYTES);
    assertThat(kept).isPositive();
    assertThat(cache.weightedBytes()).isLessThanOrEqualTo(CheckTargetCache.MAX_BYTES);
  }

  @Test
  void checkTargetCacheKeepsManySmallAuthorizations() {
    CheckTargetCache cache = new CheckTargetCache();
    for (int i = 0; i < 10_000; i++) {
      cache.put("doc:" + i, target(row("az_" + i, 1)));
    }
    // an authorization and a tombstone flag each, and the workspace's (empty) pattern list
    assertThat(cache.size()).isEqualTo(20_001);
    assertThat(cache.get(WS, "az_0", "doc:0")).isNotNull();
  }

  @Test
  void checkTargetCacheForgetsWhatTheWriterWritesAndEverythingOnClear() {
    CheckTargetCache cache = new CheckTargetCache(1L << 20);
    cache.put("doc:1", target(row("az_1", 1)));
    cache.put("doc:2", target(row("az_2", 1)));
    assertThat(cache.get(WS, "az_1", "doc:1")).isNotNull();

    cache.authorizationWritten(WS, "az_1");
    assertThat(cache.get(WS, "az_1", "doc:1")).isNull();
    assertThat(cache.get(WS, "az_2", "doc:2")).isNotNull();

    cache.tombstoneWritten(WS, "doc:2");
    assertThat(cache.get(WS, "az_2", "doc:2")).isNull();
    assertThat(cache.get(WS, "az_2", null)).isNotNull();

    cache.putPatterns(WS, List.of("db/*"));
    assertThat(cache.get(WS, "az_2", null).tombstonePatterns()).containsExactly("db/*");
    cache.tombstonePatternWritten(WS);
    assertThat(cache.patterns(WS)).isNull();
    assertThat(cache.get(WS, "az_2", null)).isNull();

    cache.clear();
    assertThat(cache.get(WS, "az_2", null)).isNull();
    assertThat(cache.size()).isZero();
  }

  @Test
  void checkTargetCacheNeverKeepsAnUnknownAuthorization() {
    CheckTargetCache cache = new CheckTargetCache();
    cache.put("doc:1", new CheckTarget(Optional.empty(), false));
    assertThat(cache.size()).isZero();
  }

  @Test
  void decodedJsonCacheHoldsLargeColumnsOnlyUpToItsByteBound() {
    long bound = 4L << 20;
    ConcurrentMap<String, Object> cache = DecodedJsonCache.create(bound);
    String text = "[\"" + "x".repeat(100_000) + "\"]";
    Object decoded = List.of("x".repeat(100_000));
    for (int i = 0; i < 200; i++) {
      cache.put(i + "\u0000" + text, decoded);
    }
    long each = DecodedJsonCache.weight("0\u0000" + text, decoded);
    assertThat(each).isGreaterThan(2L * text.length());
    assertThat(cache.size() * each).isLessThanOrEqualTo(bound);
    assertThat(cache).isNotEmpty();
  }

  @Test
  void theStoresDecodedJsonCacheIsBoundedBy64MiB() {
    ConcurrentMap<String, Object> cache = DecodedJsonCache.create();
    String text = "[\"" + "x".repeat(1 << 20) + "\"]";
    long each = DecodedJsonCache.weight("0\u0000" + text, text);
    for (int i = 0; i < 100; i++) {
      cache.put(i + "\u0000" + text, text);
    }
    assertThat(cache.size() * each).isLessThanOrEqualTo(DecodedJsonCache.MAX_BYTES);
  }
}
