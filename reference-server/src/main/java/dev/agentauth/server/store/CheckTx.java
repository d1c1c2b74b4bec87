package dev.agentauth.server.store;

import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.domain.EscalationRow;
import dev.agentauth.server.domain.GrantRow;
import dev.agentauth.server.domain.NonceRow;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;

/**
 * What a check reads and writes, and nothing else: the one role grouped work gets (see {@link
 * Store#inGroupedTransaction}), so a store can keep the writes of many checks for one batch. The
 * authorization and the resource's tombstone flag come in one call; nonces, confirmation windows
 * and escalations of the checked scope; the daily allow counters; the receipt; the webhook events a
 * new escalation or confirmation causes.
 */
public interface CheckTx extends OutboxTx {

  /**
   * An authorization locked for a check, whether the checked resource is tombstoned by an exact
   * tombstone, and the patterns of the workspace's pattern tombstones (the engine matches them).
   */
  record CheckTarget(
      Optional<AuthorizationRow> authorization,
      boolean resourceTombstoned,
      List<String> tombstonePatterns) {

    public CheckTarget {
      tombstonePatterns = List.copyOf(tombstonePatterns);
    }

    /** A target without pattern tombstones. */
    public CheckTarget(Optional<AuthorizationRow> authorization, boolean resourceTombstoned) {
      this(authorization, resourceTombstoned, List.of());
    }
  }

  /**
   * {@link AuthorizationTx#authorizationForUpdate} together with whether {@code resource} (null for
   * none) is tombstoned in the workspace by an exact tombstone, and the workspace's tombstone
   * patterns — one statement where the store can, since every check asks. {@code
   * resourceTombstoned} is false and the patterns empty when the authorization does not exist.
   * Every tombstone committed before the call is seen.
   */
  CheckTarget authorizationForCheck(String workspaceId, String authorizationId, String resource);

  /** Updates the mutable columns ({@code budget_spent_micros}, {@code revoked_at}). */
  void updateAuthorization(AuthorizationRow row);

  /** Allows counted today for {@code max_per_day} (per authorization + scope + UTC day). */
  long allowCount(String workspaceId, String authorizationId, String scope, LocalDate day);

  void addAllowCount(
      String workspaceId, String authorizationId, String scope, LocalDate day, long delta);

  /**
   * The newest nonce for this authorization + scope + resource that is still open at {@code now}.
   */
  Optional<NonceRow> openNonce(
      String workspaceId, String authorizationId, String scope, String resource, Instant now);

  void insertNonce(NonceRow row);

  /**
   * A confirmation window for this authorization + scope + resource still active at {@code now}.
   */
  Optional<GrantRow> activeGrant(
      String workspaceId, String authorizationId, String scope, String resource, Instant now);

  /** The most recently created escalation for this authorization + scope + resource. */
  Optional<EscalationRow> latestEscalation(
      String workspaceId, String authorizationId, String scope, String resource);

  void insertEscalation(EscalationRow row);

  void updateEscalation(EscalationRow row);

  void insertReceipt(ReceiptRow row);
}
