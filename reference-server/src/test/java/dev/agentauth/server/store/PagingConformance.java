package dev.agentauth.server.store;

import static dev.agentauth.server.store.StoreConformance.T0;
import static dev.agentauth.server.store.StoreConformance.WS_A;
import static dev.agentauth.server.store.StoreConformance.at;
import static dev.agentauth.server.store.StoreConformance.auth;
import static dev.agentauth.server.store.StoreConformance.authId;
import static dev.agentauth.server.store.StoreConformance.bundle;
import static dev.agentauth.server.store.StoreConformance.escalation;
import static dev.agentauth.server.store.StoreConformance.ids;
import static dev.agentauth.server.store.StoreConformance.pendingReceipt;
import static dev.agentauth.server.store.StoreConformance.ulid;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.model.AuthorizationStatus;
import dev.agentauth.model.EscalationStatus;
import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.domain.EscalationRow;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keyset pagination of every list while rows are written between pages: nothing after the cursor is
 * skipped or repeated, nothing before it appears.
 *
 * <p>Part of the store conformance suite: {@link StoreConformance} runs it on every store.
 */
interface PagingConformance extends StoreUnderTest {
  /** A keyset-paginated table for {@link #assertStablePagination}. */
  interface PagedTable {
    String id(long n);

    void insert(Tx tx, long n);

    Page<String> page(Tx tx, String afterId, int limit);
  }

  /**
   * Pages through a table with limit 3 while other transactions insert rows before and after the
   * cursor: every row after the cursor at the time it was inserted appears exactly once, in order;
   * rows inserted before the cursor never appear; nothing is skipped or repeated.
   */
  private void assertStablePagination(PagedTable t) {
    write(
        tx -> {
          for (long n = 10; n <= 100; n += 10) {
            t.insert(tx, n);
          }
        });
    List<String> seen = new ArrayList<>();
    Page<String> p1 = read(tx -> t.page(tx, null, 3));
    assertThat(p1.items()).containsExactly(t.id(10), t.id(20), t.id(30));
    assertThat(p1.hasMore()).isTrue();
    seen.addAll(p1.items());
    write(
        tx -> {
          t.insert(tx, 5); // before the cursor: never seen
          t.insert(tx, 25); // before the cursor: never seen
          t.insert(tx, 35); // right after the cursor
          t.insert(tx, 200); // at the end
        });
    Page<String> p2 = read(tx -> t.page(tx, t.id(30), 3));
    assertThat(p2.items()).containsExactly(t.id(35), t.id(40), t.id(50));
    seen.addAll(p2.items());
    write(
        tx -> {
          t.insert(tx, 45);
          t.insert(tx, 55);
          t.insert(tx, 51);
        });
    String cursor = t.id(50);
    Page<String> p;
    int pages = 0;
    do {
      String after = cursor;
      p = read(tx -> t.page(tx, after, 3));
      seen.addAll(p.items());
      if (!p.items().isEmpty()) {
        cursor = p.items().get(p.items().size() - 1);
      }
      long extra = 300 + pages;
      write(tx -> t.insert(tx, extra)); // always after the cursor: must be seen
      pages++;
      assertThat(pages).as("pagination must terminate").isLessThan(50);
    } while (p.hasMore());
    // The last page said no more rows, yet the last insert happened after it was read.
    List<String> expected = new ArrayList<>();
    for (long n : new long[] {10, 20, 30, 35, 40, 50, 51, 55, 60, 70, 80, 90, 100, 200}) {
      expected.add(t.id(n));
    }
    for (int i = 0; i < pages - 1; i++) {
      expected.add(t.id(300 + i));
    }
    assertThat(seen).doesNotHaveDuplicates().containsExactlyElementsOf(expected);
    // The row inserted after the final page is found by a page starting at the last cursor.
    String last = cursor;
    assertThat(read((Tx tx) -> t.page(tx, last, 3)).items()).containsExactly(t.id(300 + pages - 1));
  }

  @Test
  default void authorizationPaginationIsStableWhileWriting() {
    assertStablePagination(
        new PagedTable() {
          @Override
          public String id(long n) {
            return authId(n);
          }

          @Override
          public void insert(Tx tx, long n) {
            tx.insertAuthorization(auth(WS_A, id(n), "user_1", "agent_1", at(3600)));
          }

          @Override
          public Page<String> page(Tx tx, String afterId, int limit) {
            Page<AuthorizationRow> p =
                tx.listAuthorizations(
                    new AuthorizationFilter(
                        WS_A, "user_1", null, AuthorizationStatus.Known.ACTIVE, T0),
                    new PageRequest(afterId, limit));
            return new Page<>(ids(p, AuthorizationRow::authorizationId), p.hasMore());
          }
        });
  }

  @Test
  default void receiptPaginationIsStableWhileWriting() {
    assertStablePagination(
        new PagedTable() {
          @Override
          public String id(long n) {
            return ulid(n);
          }

          @Override
          public void insert(Tx tx, long n) {
            tx.insertReceipt(pendingReceipt(WS_A, id(n), at(n)));
          }

          @Override
          public Page<String> page(Tx tx, String afterId, int limit) {
            Page<ReceiptRow> p =
                tx.listReceipts(
                    WS_A,
                    new ReceiptFilter(null, null, null, null, null, "check", null, null, null),
                    new PageRequest(afterId, limit));
            return new Page<>(ids(p, ReceiptRow::receiptId), p.hasMore());
          }
        });
  }

  @Test
  default void escalationPaginationIsStableWhileWriting() {
    assertStablePagination(
        new PagedTable() {
          @Override
          public String id(long n) {
            return "esc_" + ulid(n);
          }

          @Override
          public void insert(Tx tx, long n) {
            tx.insertEscalation(
                escalation(
                    WS_A, id(n), authId(1), "payments.charge", "doc:" + n, "pending", T0, at(600)));
          }

          @Override
          public Page<String> page(Tx tx, String afterId, int limit) {
            Page<EscalationRow> p =
                tx.listEscalations(
                    new EscalationFilter(WS_A, EscalationStatus.Known.PENDING, T0),
                    new PageRequest(afterId, limit));
            return new Page<>(ids(p, EscalationRow::escalationId), p.hasMore());
          }
        });
  }

  @Test
  default void bundlePaginationIsStableWhileWriting() {
    assertStablePagination(
        new PagedTable() {
          @Override
          public String id(long n) {
            return String.format("bundle-%06d", n);
          }

          @Override
          public void insert(Tx tx, long n) {
            tx.upsertBundle(bundle(WS_A, id(n), "agent_1", T0));
          }

          @Override
          public Page<String> page(Tx tx, String afterId, int limit) {
            Page<BundleRow> p = tx.listActiveBundles(WS_A, new PageRequest(afterId, limit));
            return new Page<>(ids(p, BundleRow::bundleId), p.hasMore());
          }
        });
  }

  @Test
  default void tombstonePaginationIsStableWhileWriting() {
    assertStablePagination(
        new PagedTable() {
          @Override
          public String id(long n) {
            return String.format("doc:%06d", n);
          }

          @Override
          public void insert(Tx tx, long n) {
            tx.insertTombstone(new TombstoneRow(WS_A, id(n), null, T0));
          }

          @Override
          public Page<String> page(Tx tx, String afterId, int limit) {
            Page<TombstoneRow> p = tx.listTombstones(WS_A, new PageRequest(afterId, limit));
            return new Page<>(ids(p, TombstoneRow::resource), p.hasMore());
          }
        });
  }
}
