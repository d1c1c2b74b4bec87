package dev.agentauth.server.store;

import org.junit.jupiter.api.Test;

/**
 * The receipt log's store operations ({@link LogTx}): each test runs the matching {@link
 * LogConformance} check on the store under test.
 *
 * <p>Part of the store conformance suite: {@link StoreConformance} runs it on every store.
 */
interface LogTxConformance extends StoreUnderTest {
  @Test
  default void logUnloggedReceiptsAreTheSignedOnesInIdOrderAndAppendingTakesThem() {
    LogConformance.unloggedReceiptsAreTheSignedOnesInIdOrderAndAppendingTakesThem(store());
  }

  @Test
  default void logAppendingFromAStaleSizeChangesNothing() {
    LogConformance.appendingFromAStaleSizeChangesNothing(store());
  }

  @Test
  default void logAppendingAReceiptTwiceOrAnUnsignedOneFailsAndRollsBack() {
    LogConformance.appendingAReceiptTwiceOrAnUnsignedOneFailsAndRollsBack(store());
  }

  @Test
  default void logATransactionThatThrowsLeavesTheLogAsItWas() {
    LogConformance.aTransactionThatThrowsLeavesTheLogAsItWas(store());
  }

  @Test
  default void logCheckpointsCosignaturesAndWitnessesRoundTrip() {
    LogConformance.checkpointsCosignaturesAndWitnessesRoundTrip(store());
  }

  @Test
  default void logUncheckpointedWorkspacesAreThoseWhoseLogOutgrewTheirNewestCheckpoint() {
    LogConformance.uncheckpointedWorkspacesAreThoseWhoseLogOutgrewTheirNewestCheckpoint(store());
  }

  @Test
  default void logConcurrentAppendsNeverLeaveAGapOrADuplicate() throws Exception {
    LogConformance.concurrentAppendsNeverLeaveAGapOrADuplicate(store());
  }
}
