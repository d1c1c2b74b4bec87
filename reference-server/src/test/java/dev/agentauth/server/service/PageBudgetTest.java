package dev.agentauth.server.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.server.store.Page;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * A list page is bounded by bytes as well as rows: it stops taking rows once its rendered items
 * (compact UTF-8 JSON, one separator each) would pass 1 MiB, always keeps at least one, and a page
 * cut short says {@code has_more} with a cursor right after its last item.
 */
class PageBudgetTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A rendered item whose JSON (a string) takes {@code bytes} bytes with its separator. */
  private static String itemOfBytes(long bytes) {
    return "x".repeat((int) (bytes - 3)); // two quotes and one separator
  }

  /** Rows are their own rendered items. */
  private static PageBudget.Fitted<String, String> fit(Page<String> page) {
    return PageBudget.fit(JSON, page, Function.identity());
  }

  @Test
  void aPageThatFitsIsKeptWholeWithWhereTheNextPageResumes() {
    Page<String> page = new Page<>(List.of("a", "b", "c"), true, "k9");

    PageBudget.Fitted<String, String> fitted = fit(page);

    assertThat(fitted.rows()).isEqualTo(page);
    assertThat(fitted.items()).containsExactly("a", "b", "c");
  }

  @Test
  void itemsTakingExactlyOneMibFit() {
    long half = PageBudget.MAX_PAGE_BYTES / 2;
    Page<String> page = new Page<>(List.of(itemOfBytes(half), itemOfBytes(half)), false);

    PageBudget.Fitted<String, String> fitted = fit(page);

    assertThat(fitted.rows().items()).hasSize(2);
    assertThat(fitted.rows().hasMore()).isFalse();
  }

  @Test
  void theBudgetStopsThePageBeforeTheItemThatWouldPassOneMib() {
    long half = PageBudget.MAX_PAGE_BYTES / 2;
    String a = itemOfBytes(half);
    String b = itemOfBytes(half);
    String c = itemOfBytes(3); // the empty string: 3 bytes more than the budget
    Page<String> page = new Page<>(List.of(a, b, c), false);

    PageBudget.Fitted<String, String> fitted = fit(page);

    assertThat(fitted.rows().items()).containsExactly(a, b);
    assertThat(fitted.items()).containsExactly(a, b);
    assertThat(fitted.rows().hasMore()).as("has_more of a page cut short").isTrue();
    assertThat(fitted.rows().resumeAfter()).isNull();
  }

  @Test
  void aPageCutShortResumesRightAfterItsLastItemNotWhereTheStorePageEnded() {
    String big = itemOfBytes(600_000);
    Page<String> page = new Page<>(List.of("k1" + big, "k2" + big, "k3"), true, "k7");

    PageBudget.Fitted<String, String> fitted = fit(page);

    String next = Cursors.next("f", fitted.rows(), row -> row.substring(0, 2));
    assertThat(fitted.rows().items()).hasSize(1);
    assertThat(Cursors.decode(next, "f")).isEqualTo("k1");
  }

  @Test
  void aSingleItemLargerThanTheBudgetIsStillReturned() {
    String huge = itemOfBytes(3 * PageBudget.MAX_PAGE_BYTES);

    PageBudget.Fitted<String, String> alone = fit(new Page<>(List.of(huge), false));
    PageBudget.Fitted<String, String> first = fit(new Page<>(List.of(huge, "next"), false));

    assertThat(alone.rows().items()).containsExactly(huge);
    assertThat(alone.rows().hasMore()).isFalse();
    assertThat(first.rows().items()).containsExactly(huge);
    assertThat(first.rows().hasMore()).isTrue();
  }

  @Test
  void theBudgetCountsUtf8BytesNotCharacters() {
    // 200,000 three-byte characters: 600,002 bytes as JSON, though 200,002 characters.
    String wide = "\u2603".repeat(200_000);

    PageBudget.Fitted<String, String> fitted = fit(new Page<>(List.of(wide, wide), false));

    assertThat(fitted.rows().items()).containsExactly(wide);
    assertThat(fitted.rows().hasMore()).isTrue();
  }

  @Test
  void followingTheCursorsOfCutPagesReturnsEveryRowExactlyOnce() {
    // Ten rows of 400 kB: two fit a page, a third would pass the budget.
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      keys.add(String.format("k%02d", i));
    }
    String blob = itemOfBytes(400_000);
    Function<String, String> render = key -> key + blob;

    List<String> seen = new ArrayList<>();
    String cursor = null;
    int pages = 0;
    do {
      String after = Cursors.decode(cursor, "f");
      List<String> rows =
          keys.stream().filter(k -> after == null || k.compareTo(after) > 0).limit(5).toList();
      boolean more = !rows.isEmpty() && !rows.get(rows.size() - 1).equals("k09");
      PageBudget.Fitted<String, String> fitted =
          PageBudget.fit(JSON, new Page<>(rows, more), render);
      assertThat(fitted.items()).hasSize(fitted.rows().items().size());
      seen.addAll(fitted.rows().items());
      cursor = Cursors.next("f", fitted.rows(), Function.identity());
      pages++;
    } while (cursor != null);

    assertThat(seen).containsExactlyElementsOf(keys);
    assertThat(pages).isEqualTo(5);
  }
}
