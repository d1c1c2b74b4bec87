package dev.agentauth.server.store;

import static dev.agentauth.server.store.StoreConformance.T0;
import static dev.agentauth.server.store.StoreConformance.WS_A;
import static dev.agentauth.server.store.StoreConformance.WS_B;
import static dev.agentauth.server.store.StoreConformance.assertBundle;
import static dev.agentauth.server.store.StoreConformance.at;
import static dev.agentauth.server.store.StoreConformance.bundle;
import static dev.agentauth.server.store.StoreConformance.ids;
import static dev.agentauth.server.store.StoreConformance.targets;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.domain.ScopeRule;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Bundles ({@link BundleTx}): upserts replace the whole row, soft-deleted bundles are kept but not
 * listed, and the list of active ones pages.
 *
 * <p>Part of the store conformance suite: {@link StoreConformance} runs it on every store.
 */
interface BundleConformance extends StoreUnderTest {
  @Test
  default void upsertBundleInsertsThenReplacesTheWholeRow() {
    BundleRow b =
        bundle(WS_A, "assistant", "agent_scheduler", Instant.parse("2026-11-22T10:00:00.070Z"));
    write(tx -> tx.upsertBundle(b));
    assertBundle(read(tx -> tx.bundle(WS_A, "assistant")).orElseThrow(), b);
    BundleRow replaced =
        new BundleRow(
            WS_A,
            "assistant",
            "agent_mailer",
            List.of(new ScopeRule("email.send", 3L, "mailto:*@example.com", null)),
            List.of(),
            List.of(),
            targets("z.last", "zed", "a.first", "ay"),
            null,
            null,
            b.createdAt(),
            Instant.parse("2026-11-22T11:00:00.080Z"),
            null);
    write(tx -> tx.upsertBundle(replaced));
    read(
        tx -> {
          assertBundle(tx.bundle(WS_A, "assistant").orElseThrow(), replaced);
          assertThat(tx.bundle(WS_B, "assistant")).isEmpty();
          assertThat(tx.bundle(WS_A, "other")).isEmpty();
          return null;
        });
  }

  @Test
  default void softDeletedBundlesAreKeptButNotListedAndCanBeRecreated() {
    BundleRow b = bundle(WS_A, "assistant", "agent_scheduler", T0);
    write(tx -> tx.upsertBundle(b));
    BundleRow deleted = b.deleted(at(60));
    write(tx -> tx.upsertBundle(deleted));
    read(
        tx -> {
          BundleRow back = tx.bundle(WS_A, "assistant").orElseThrow();
          assertBundle(back, deleted);
          assertThat(back.isActive()).isFalse();
          assertThat(tx.listActiveBundles(WS_A, new PageRequest(null, 10)).items()).isEmpty();
          assertThat(tx.listActiveBundles(WS_A, new PageRequest(null, 10)).hasMore()).isFalse();
          return null;
        });
    BundleRow recreated = bundle(WS_A, "assistant", "agent_new", at(120));
    write(tx -> tx.upsertBundle(recreated));
    read(
        tx -> {
          assertBundle(tx.bundle(WS_A, "assistant").orElseThrow(), recreated);
          assertThat(tx.listActiveBundles(WS_A, new PageRequest(null, 10)).items())
              .containsExactly(recreated);
          return null;
        });
  }

  @Test
  default void listActiveBundlesPaginatesAndSkipsDeletedOnes() {
    write(
        tx -> {
          for (int i = 1; i <= 6; i++) {
            tx.upsertBundle(bundle(WS_A, "b" + i, "agent_1", T0));
          }
          tx.upsertBundle(bundle(WS_B, "b1", "agent_other", T0));
        });
    write(
        tx -> {
          tx.upsertBundle(bundle(WS_A, "b2", "agent_1", T0).deleted(at(1)));
          tx.upsertBundle(bundle(WS_A, "b5", "agent_1", T0).deleted(at(1)));
        });
    read(
        tx -> {
          Page<BundleRow> p1 = tx.listActiveBundles(WS_A, new PageRequest(null, 2));
          assertThat(ids(p1, BundleRow::bundleId)).containsExactly("b1", "b3");
          assertThat(p1.hasMore()).isTrue();
          Page<BundleRow> p2 = tx.listActiveBundles(WS_A, new PageRequest("b3", 2));
          assertThat(ids(p2, BundleRow::bundleId)).containsExactly("b4", "b6");
          assertThat(p2.hasMore()).isFalse();
          Page<BundleRow> p3 = tx.listActiveBundles(WS_A, new PageRequest("b4", 1));
          assertThat(ids(p3, BundleRow::bundleId)).containsExactly("b6");
          assertThat(p3.hasMore()).isFalse();
          Page<BundleRow> p4 = tx.listActiveBundles(WS_A, new PageRequest("b1", 2));
          assertThat(ids(p4, BundleRow::bundleId)).containsExactly("b3", "b4");
          assertThat(p4.hasMore()).isTrue();
          Page<BundleRow> b = tx.listActiveBundles(WS_B, new PageRequest(null, 10));
          assertThat(b.items()).containsExactly(bundle(WS_B, "b1", "agent_other", T0));
          assertBundle(tx.bundle(WS_A, "b1").orElseThrow(), bundle(WS_A, "b1", "agent_1", T0));
          return null;
        });
  }
}
