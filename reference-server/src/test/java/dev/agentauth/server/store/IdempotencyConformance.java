package dev.agentauth.server.store;

import static dev.agentauth.server.store.StoreConformance.T0;
import static dev.agentauth.server.store.StoreConformance.assertIdempotency;
import static dev.agentauth.server.store.StoreConformance.idem;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Idempotency records ({@link IdempotencyTx}): byte-for-byte round trips and purging by age.
 *
 * <p>Part of the store conformance suite: {@link StoreConformance} runs it on every store.
 */
interface IdempotencyConformance extends StoreUnderTest {
  @Test
  default void idempotencyRecordsRoundTripByteForByte() {
    byte[] body = new byte[300];
    for (int i = 0; i < body.length; i++) {
      body[i] = (byte) i;
    }
    String k1 = "1f".repeat(32);
    String k2 = "2e".repeat(32);
    IdempotencyRow r1 = idem(k1, "order-7781", body, Instant.parse("2026-11-22T10:00:00.333Z"));
    IdempotencyRow r2 =
        idem(k2, "order-7781", "{\"caf\u00e9\":true}".getBytes(StandardCharsets.UTF_8), T0);
    IdempotencyRow empty =
        new IdempotencyRow(k1, "delete-1", "sha256:e3b0", 204, "", new byte[0], T0);
    write(
        tx -> {
          tx.insertIdempotency(r1);
          tx.insertIdempotency(r2);
          tx.insertIdempotency(empty);
        });
    read(
        tx -> {
          assertIdempotency(tx.idempotency(k1, "order-7781").orElseThrow(), r1);
          assertIdempotency(tx.idempotency(k2, "order-7781").orElseThrow(), r2);
          assertIdempotency(tx.idempotency(k1, "delete-1").orElseThrow(), empty);
          assertThat(tx.idempotency(k2, "delete-1")).isEmpty();
          assertThat(tx.idempotency(k1, "order-7782")).isEmpty();
          return null;
        });
  }

  @Test
  default void purgeIdempotencyDeletesOnlyRecordsOlderThanTheCutoff() {
    Instant cutoff = T0.minus(Duration.ofHours(24));
    String k = "3d".repeat(32);
    write(
        tx -> {
          tx.insertIdempotency(idem(k, "old-1", new byte[] {1}, cutoff.minus(Duration.ofHours(1))));
          tx.insertIdempotency(idem(k, "old-2", new byte[] {2}, cutoff.minusMillis(1)));
          tx.insertIdempotency(
              idem("4c".repeat(32), "old-3", new byte[] {3}, cutoff.minusMillis(5)));
          tx.insertIdempotency(idem(k, "at-cutoff", new byte[] {4}, cutoff));
          tx.insertIdempotency(idem(k, "fresh", new byte[] {5}, T0));
        });
    assertThat(store().inTransaction((Tx tx) -> tx.purgeIdempotency(cutoff))).isEqualTo(3);
    read(
        tx -> {
          assertThat(tx.idempotency(k, "old-1")).isEmpty();
          assertThat(tx.idempotency(k, "old-2")).isEmpty();
          assertThat(tx.idempotency("4c".repeat(32), "old-3")).isEmpty();
          assertThat(tx.idempotency(k, "at-cutoff")).isPresent();
          assertThat(tx.idempotency(k, "fresh")).isPresent();
          return null;
        });
    assertThat(store().inTransaction((Tx tx) -> tx.purgeIdempotency(cutoff))).isZero();
    assertThat(store().inTransaction((Tx tx) -> tx.purgeIdempotency(T0.plusMillis(1))))
        .isEqualTo(2);
    assertThat(read((Tx tx) -> tx.idempotency(k, "fresh"))).isEmpty();
  }
}
