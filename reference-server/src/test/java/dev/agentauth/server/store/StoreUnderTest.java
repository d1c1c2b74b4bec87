package dev.agentauth.server.store;

import static dev.agentauth.server.store.StoreConformance.WS_A;

import java.util.function.Consumer;

/**
 * The store a conformance area runs against, and the shortcuts every area uses on it. Each area of
 * the store conformance suite is an interface extending this one; {@link StoreConformance}
 * implements them all and supplies a fresh store per test.
 */
interface StoreUnderTest {
  /** The store under test, fresh and empty at the start of each test. */
  Store store();

  /** Runs {@code work} in one committed transaction of {@link #store()}. */
  default void write(Consumer<Tx> work) {
    StoreConformance.write(store(), work);
  }

  /** Runs {@code work} in a read transaction of {@link #store()}. */
  default <T> T read(Store.Work<T> work) {
    return store().read(work);
  }

  /** What a check of {@code authorizationId} in {@code ws_a} on {@code resource} reads. */
  default Tx.CheckTarget checkTarget(String authorizationId, String resource) {
    return store()
        .inTransaction((Tx tx) -> tx.authorizationForCheck(WS_A, authorizationId, resource));
  }
}
