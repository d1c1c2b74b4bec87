package dev.agentauth.server.store;

import static dev.agentauth.server.store.StoreConformance.T0;
import static dev.agentauth.server.store.StoreConformance.WS_A;
import static dev.agentauth.server.store.StoreConformance.WS_B;
import static dev.agentauth.server.store.StoreConformance.at;
import static dev.agentauth.server.store.StoreConformance.authId;
import static dev.agentauth.server.store.StoreConformance.fullAuthorization;
import static dev.agentauth.server.store.StoreConformance.ids;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.store.StoreConformance.WorkFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Tombstones ({@link TombstoneTx}): exact resources and patterns per workspace, their lists, and
 * that every check sees them.
 *
 * <p>Part of the store conformance suite: {@link StoreConformance} runs it on every store.
 */
interface TombstoneConformance extends StoreUnderTest {
  @Test
  default void tombstonesRoundTripPerWorkspaceAndListInCodePointOrder() {
    List<String> resources =
        List.of(
            "doc:b", "Doc:z", "doc:A", "doc-1", "doc:a", "url:https://x.example/y?z=1", "doc:a/b");
    write(
        tx -> {
          for (int i = 0; i < resources.size(); i++) {
            tx.insertTombstone(
                new TombstoneRow(
                    WS_A,
                    resources.get(i),
                    i % 2 == 0 ? "reason " + i : null,
                    at(i).plusMillis(i)));
          }
          tx.insertTombstone(new TombstoneRow(WS_B, "doc:a", "other workspace", T0));
        });
    List<String> sorted = resources.stream().sorted().toList();
    read(
        tx -> {
          for (int i = 0; i < resources.size(); i++) {
            assertThat(tx.tombstone(WS_A, resources.get(i)))
                .contains(
                    new TombstoneRow(
                        WS_A,
                        resources.get(i),
                        i % 2 == 0 ? "reason " + i : null,
                        at(i).plusMillis(i)));
          }
          assertThat(tx.tombstone(WS_B, "doc:a"))
              .contains(new TombstoneRow(WS_B, "doc:a", "other workspace", T0));
          assertThat(tx.tombstone(WS_B, "doc:b")).isEmpty();
          assertThat(tx.tombstone(WS_A, "doc:c")).isEmpty();
          assertThat(tx.tombstone(WS_A, "DOC:A")).isEmpty();
          List<String> seen = new ArrayList<>();
          String after = null;
          int pages = 0;
          Page<TombstoneRow> p;
          do {
            p = tx.listTombstones(WS_A, new PageRequest(after, 3));
            seen.addAll(ids(p, TombstoneRow::resource));
            if (!p.items().isEmpty()) {
              after = p.items().get(p.items().size() - 1).resource();
            }
            pages++;
          } while (p.hasMore() && pages < 10);
          assertThat(pages).isEqualTo(3);
          assertThat(seen).containsExactlyElementsOf(sorted);
          assertThat(
                  ids(tx.listTombstones(WS_B, new PageRequest(null, 10)), TombstoneRow::resource))
              .containsExactly("doc:a");
          return null;
        });
  }

  @Test
  default void patternTombstonesRoundTripAndEveryCheckSeesThem() {
    AuthorizationRow a = fullAuthorization(WS_A, authId(1));
    write(
        tx -> {
          tx.insertAuthorization(a);
          tx.insertTombstonePattern(TombstoneRow.pattern(WS_A, "db/*", "prod", at(1)));
          tx.insertTombstonePattern(TombstoneRow.pattern(WS_B, "*", null, T0));
        });
    assertThat(checkTarget(authId(1), "x").tombstonePatterns()).containsExactly("db/*");
    read(
        tx -> {
          assertThat(tx.tombstonePattern(WS_A, "db/*"))
              .contains(TombstoneRow.pattern(WS_A, "db/*", "prod", at(1)));
          assertThat(tx.tombstonePattern(WS_A, "*")).isEmpty();
          // a pattern is not an exact tombstone of its text, nor an exact one a pattern
          assertThat(tx.tombstone(WS_A, "db/*")).isEmpty();
          assertThat(tx.tombstonePatterns(WS_B)).containsExactly("*");
          return null;
        });

    // A new pattern is seen by the next check (a store that keeps what it read forgets it).
    write(tx -> tx.insertTombstonePattern(TombstoneRow.pattern(WS_A, "a*", null, at(2))));
    assertThat(checkTarget(authId(1), "x").tombstonePatterns()).containsExactly("a*", "db/*");
    assertThat(checkTarget(authId(1), null).tombstonePatterns()).containsExactly("a*", "db/*");

    // One that a rolled-back transaction wrote is not, even after a check read it inside.
    assertThatThrownBy(
            () ->
                store()
                    .inTransaction(
                        (Tx tx) -> {
                          tx.insertTombstonePattern(TombstoneRow.pattern(WS_A, "z*", null, at(3)));
                          assertThat(
                                  tx.authorizationForCheck(WS_A, authId(1), "x")
                                      .tombstonePatterns())
                              .containsExactly("a*", "db/*", "z*");
                          throw new WorkFailure("undo it");
                        }))
        .isInstanceOf(WorkFailure.class);
    assertThat(checkTarget(authId(1), "x").tombstonePatterns()).containsExactly("a*", "db/*");
    assertThat(checkTarget(authId(9), "x")).isEqualTo(new Tx.CheckTarget(Optional.empty(), false));

    read(
        tx -> {
          Page<TombstoneRow> first = tx.listTombstonePatterns(WS_A, new PageRequest(null, 1));
          assertThat(ids(first, TombstoneRow::resourcePattern)).containsExactly("a*");
          assertThat(first.hasMore()).isTrue();
          Page<TombstoneRow> rest = tx.listTombstonePatterns(WS_A, new PageRequest("a*", 5));
          assertThat(ids(rest, TombstoneRow::resourcePattern)).containsExactly("db/*");
          assertThat(rest.hasMore()).isFalse();
          return null;
        });
  }
}
