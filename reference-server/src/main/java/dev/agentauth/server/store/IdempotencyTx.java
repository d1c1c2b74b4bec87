package dev.agentauth.server.store;

import java.time.Instant;
import java.util.Optional;

/** Idempotency records of mutating requests, per API key and Idempotency-Key. */
public interface IdempotencyTx {

  Optional<IdempotencyRow> idempotency(String apiKeyHash, String idempotencyKey);

  void insertIdempotency(IdempotencyRow row);

  /** Deletes idempotency records created before {@code cutoff}; returns how many. */
  int purgeIdempotency(Instant cutoff);
}
