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

  /** Work that needs only what a check does (see {@link #inGroupedTransaction}). */
  @FunctionalInterface
  interface CheckWork<T> {
    T run(CheckTx tx);
  }

  /** The authorization a grouped transaction locks and the resource it checks, named up front. */
  record GroupKey(String workspaceId, String authorizationId, String resource) {}

  /**
   * Runs {@code work} like {@link #inTransaction}, but lets the store run it in one transaction
   * together with other grouped work queued at the same time (group commit), so that a busy server
   * pays one commit and a few round trips for many checks. The result is as if each work ran alone,
   * one after the other: a work sees what the works before it in its group wrote, and a work that
   * throws leaves nothing behind while the others commit.
   *
   * <p>The work gets only a {@link CheckTx}, locks no row but the authorization {@code key} names
   * (through {@link CheckTx#authorizationForCheck}), and must be safe to run again: if its group
   * fails, the store runs each work of the group again on its own. The default runs it on its own
   * at once.
   */
  default <T> T inGroupedTransaction(GroupKey key, CheckWork<T> work) {
    return inTransaction(work::run);
  }

  /**
   * Runs {@code work} — the receipt signer storing a batch of signatures — like {@link
   * #inTransaction}, but ahead of other queued work where the store queues transactions: a store
   * with a single writer runs it in its next batch, before any queued check, so that signing keeps
   * its share of the writer under a flood of checks. The default runs it like {@link
   * #inTransaction}.
   */
  default <T> T inSigningTransaction(Work<T> work) {
    return inTransaction(work);
  }

  /**
   * Runs read-only {@code work} in a transaction that sees every transaction committed before it
   * began. Stores may run it on a read connection, where a write fails; the default runs it like
   * {@link #inTransaction}.
   */
  default <T> T read(Work<T> work) {
    return inTransaction(work);
  }

  /**
   * How long background writers (the receipt signer) may wait to gather more work into one
   * transaction. Zero for stores where a transaction costs little beyond its statements; a few
   * milliseconds for a database across the network, where each transaction costs round trips.
   */
  default java.time.Duration batchLinger() {
    return java.time.Duration.ZERO;
  }

  /** Whether the store can serve requests now (for {@code /readyz}). */
  boolean isReachable();

  /**
   * Whether the threads the store runs itself are alive (for {@code /healthz}): false when a thread
   * every write depends on (the SQLite writer, a PostgreSQL group thread) has died, which only a
   * restart mends. Stores without threads of their own are always live.
   */
  default boolean isLive() {
    return true;
  }

  /**
   * Whether other server instances may use this store at the same time (PostgreSQL). A store only
   * one process opens may end, at start, what a killed process left leased.
   */
  default boolean sharedByInstances() {
    return false;
  }

  /** A short description for logs, e.g. {@code memory}. */
  String describe();

  @Override
  void close();
}
