package dev.agentauth.client.internal;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/** Future helpers that keep cancellation flowing to the HTTP call. Not part of the public API. */
public final class Futures {
  private Futures() {}

  /**
   * Returns {@code source} mapped by {@code fn}; cancelling the result cancels {@code source} (and
   * so the HTTP call in flight), which {@code thenApply} alone would not do.
   */
  public static <A, B> CompletableFuture<B> map(
      CompletableFuture<A> source, Function<? super A, ? extends B> fn) {
    CompletableFuture<B> result = new CompletableFuture<>();
    source.whenComplete(
        (a, e) -> {
          if (e != null) {
            result.completeExceptionally(Errors.unwrap(e));
            return;
          }
          try {
            result.complete(fn.apply(a));
          } catch (RuntimeException ex) {
            result.completeExceptionally(ex);
          }
        });
    result.whenComplete(
        (b, e) -> {
          if (result.isCancelled()) {
            source.cancel(true);
          }
        });
    return result;
  }
}
