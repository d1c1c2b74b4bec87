package dev.agentauth.server.service;

import dev.agentauth.model.ReceiptRef;
import dev.agentauth.server.store.ReceiptRow;
import java.util.List;
import java.util.function.Function;

/**
 * What an operation produced: the HTTP status, the receipts it created (to sign after commit), and
 * the response body as a function of how each receipt is shown — a pending envelope inside the
 * transaction, or the signed receipt after a {@code wait=true} wait.
 */
public record Outcome(int status, List<ReceiptRow> receipts, Function<ReceiptView, Object> body) {

  public Outcome {
    receipts = List.copyOf(receipts);
  }

  /** A body without receipts. */
  public static Outcome of(int status, Object body) {
    return new Outcome(status, List.of(), v -> body);
  }

  /** How a receipt row appears in a response. */
  @FunctionalInterface
  public interface ReceiptView extends Function<ReceiptRow, ReceiptRef> {}
}
