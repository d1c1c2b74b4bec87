package dev.agentauth.verifier.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * Maps a list on an {@link Executor}, keeping the input order: the list is cut into contiguous
 * slices, one task each, and the caller waits for all of them. Slices are small enough to balance
 * the load across threads (at least about 32 per list when the list is long enough) and large
 * enough (up to 16 items) that handing them over costs little next to verifying a receipt.
 *
 * <p>Internal to this library (used by the verifier and its command line); not a supported API.
 */
public final class Parallel {

  private static final int MAX_SLICE = 16;
  private static final int MIN_SLICES = 32;

  private Parallel() {}

  /**
   * Returns {@code f} applied to every element of {@code items}, in order, computed on {@code
   * executor}, or on the calling thread when {@code executor} is null. The calling thread waits and
   * must not be one the executor needs.
   *
   * @param <T> the element type
   * @param <R> the result type
   * @param items the elements
   * @param f the function, safe to call from several threads at once
   * @param executor runs the work, or {@code null} for the calling thread
   * @return the results, in input order
   * @throws java.util.concurrent.RejectedExecutionException if the executor refuses a task
   */
  public static <T, R> List<R> map(
      List<T> items, Function<? super T, ? extends R> f, Executor executor) {
    int n = items.size();
    if (executor == null) {
      List<R> result = new ArrayList<>(n);
      for (T item : items) {
        result.add(f.apply(item));
      }
      return result;
    }
    Object[] out = new Object[n];
    int slice = Math.max(1, Math.min(MAX_SLICE, n / MIN_SLICES));
    List<CompletableFuture<Void>> tasks = new ArrayList<>(n / slice + 1);
    for (int from = 0; from < n; from += slice) {
      int start = from;
      int end = Math.min(n, from + slice);
      tasks.add(
          CompletableFuture.runAsync(
              () -> {
                for (int i = start; i < end; i++) {
                  out[i] = f.apply(items.get(i));
                }
              },
              executor));
    }
    try {
      CompletableFuture.allOf(tasks.toArray(new CompletableFuture<?>[0])).join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      if (cause instanceof Error) {
        throw (Error) cause;
      }
      throw e;
    }
    List<R> result = new ArrayList<>(n);
    for (Object o : out) {
      @SuppressWarnings("unchecked")
      R r = (R) o;
      result.add(r);
    }
    return result;
  }
}
