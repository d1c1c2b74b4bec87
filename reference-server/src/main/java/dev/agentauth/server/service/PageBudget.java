package dev.agentauth.server.service;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.server.store.Page;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * List pages are bounded by bytes as well as rows: a page stops taking rows once its rendered items
 * would pass {@link #MAX_PAGE_BYTES}, always keeping at least one. A page cut short says {@code
 * has_more: true}, and its cursor resumes right after its last item, so following cursors still
 * reaches every row exactly once.
 */
final class PageBudget {
  /** The most bytes of rendered items (compact UTF-8 JSON) one list page carries: 1 MiB. */
  static final long MAX_PAGE_BYTES = 1L << 20;

  private PageBudget() {}

  /**
   * The rows kept (with {@code hasMore} set when any row was left out) and their rendered items.
   */
  record Fitted<R, W>(Page<R> rows, List<W> items) {}

  /** Renders the rows of {@code page} that fit in {@link #MAX_PAGE_BYTES}. */
  static <R, W> Fitted<R, W> fit(ObjectMapper json, Page<R> page, Function<R, W> render) {
    List<R> rows = new ArrayList<>(page.items().size());
    List<W> items = new ArrayList<>(page.items().size());
    long bytes = 0;
    for (R row : page.items()) {
      W item = render.apply(row);
      bytes += SerializedSize.of(json, item) + 1;
      if (bytes > MAX_PAGE_BYTES && !items.isEmpty()) {
        return new Fitted<>(new Page<>(rows, true), items);
      }
      rows.add(row);
      items.add(item);
    }
    return new Fitted<>(page, items); // every row fits: keep where the next page resumes
  }
}
