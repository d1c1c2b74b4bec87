package dev.agentauth.server.store;

/**
 * The server's storage, designed around transactions: everything one request reads, decides and
 * writes — counters, budget spend, approvals consumed, nonces and escalations created, receipt rows
 * and the idempotency record — happens inside one {@link #inTransaction} call and commits together
 * or not at all.
 *
 * <p>Implementations must make transactions serializable with respect to the rows they lock: {@link
 * Tx#authorizationForUpdate} blocks concurrent transactions that lock the same authorization until
 * the first commits (a row lock in SQL stores).
 */
public interface Store extends AutoCloseable {

  /** Unit of work run inside a transaction. */
  @FunctionalInterface
  interface Work<T> {
    T run(Tx tx);
  }

  /**
   * Runs {@code work} in a transaction. It commits when {@code work} returns and rolls back every
   * change when it throws; the exception propagates unchanged.
   */
  <T> T inTransaction(Work<T> work);

  /** Whether the store can serve requests now (for {@code /readyz}). */
  boolean isReachable();

  /** A short description for logs, e.g. {@code memory}. */
  String describe();

  @Override
  void close();
}
