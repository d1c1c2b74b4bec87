package dev.agentauth.client;

import dev.agentauth.client.internal.Page;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Function;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * Every element of a list endpoint, across all pages: the next page is fetched (synchronously, with
 * the call's {@link RequestOptions}) only when iteration reaches the end of the current one. Each
 * {@link #iterator()} or {@link #stream()} starts again from the first page.
 *
 * <pre>{@code
 * for (ReceiptSummary s : client.receipts().listAutoPaging(params)) { ... }
 *
 * long denials = client.receipts().listAutoPaging(params).stream()
 *     .filter(s -> Decision.DENY.equals(s.decision()))
 *     .count();
 * }</pre>
 *
 * <p>Failures surface from {@code hasNext()}/{@code next()} (or the stream operation) as the
 * client's {@link AgentAuthException}s. The iterable is thread-safe; each iterator is not.
 *
 * @param <T> the element type
 */
public final class AutoPagingIterable<T> implements Iterable<T> {
  private final Function<String, Page<T>> fetch;
  private final String firstCursor;

  AutoPagingIterable(Function<String, Page<T>> fetch, String firstCursor) {
    this.fetch = Objects.requireNonNull(fetch, "fetch");
    this.firstCursor = firstCursor;
  }

  /** Returns an iterator over every element, fetching pages lazily. */
  @Override
  public Iterator<T> iterator() {
    return new PagingIterator();
  }

  /** Returns a sequential, ordered stream over every element, fetching pages lazily. */
  public Stream<T> stream() {
    return StreamSupport.stream(
        Spliterators.spliteratorUnknownSize(iterator(), Spliterator.ORDERED | Spliterator.NONNULL),
        false);
  }

  private final class PagingIterator implements Iterator<T> {
    private Iterator<T> current;
    private Page<T> page;

    @Override
    public boolean hasNext() {
      while (current == null || !current.hasNext()) {
        String cursor;
        if (page == null) {
          cursor = firstCursor;
        } else if (!page.hasMore()) {
          return false;
        } else {
          cursor = page.nextCursor();
          if (cursor == null) {
            throw new MalformedResponseException(
                "the list answered has_more=true without a next_cursor; cannot fetch the next"
                    + " page",
                200,
                null,
                null);
          }
        }
        Page<T> next = fetch.apply(cursor);
        if (page != null && next.hasMore() && Objects.equals(next.nextCursor(), cursor)) {
          throw new MalformedResponseException(
              "the list answered the same next_cursor twice; stopping to avoid an endless loop",
              200,
              null,
              null);
        }
        page = next;
        current = next.items().iterator();
      }
      return true;
    }

    @Override
    public T next() {
      if (!hasNext()) {
        throw new NoSuchElementException("no more elements");
      }
      return current.next();
    }
  }
}
