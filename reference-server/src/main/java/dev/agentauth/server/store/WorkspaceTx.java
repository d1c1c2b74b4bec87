package dev.agentauth.server.store;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Workspaces, their API keys and signing keys, and named locks. */
public interface WorkspaceTx {

  Optional<WorkspaceRow> workspace(String workspaceId);

  /** Inserts a workspace; false (and nothing written) when one with this id exists. */
  boolean insertWorkspace(WorkspaceRow row);

  /**
   * Takes an exclusive lock on {@code name} held until this transaction ends, so transactions that
   * must not interleave — also in other server instances sharing the store — run one after the
   * other. Used where no row exists yet to lock (an idempotency key, a bundle id). Stores whose
   * write transactions are already serialized may do nothing.
   */
  void lock(String name);

  /**
   * Takes a shared lock on {@code name} held until this transaction ends: shared holders do not
   * wait for each other, but wait for (and hold off) a {@link #lock} of the same name.
   */
  void lockShared(String name);

  /** The API key whose secret hashes to {@code keyHash}, revoked or not. */
  Optional<ApiKeyRow> apiKey(String keyHash);

  /** The workspace's API key with this id, revoked or not. */
  Optional<ApiKeyRow> apiKeyById(String workspaceId, String keyId);

  void insertApiKey(ApiKeyRow row);

  /** The workspace's API keys in key id order, revoked ones included. */
  Page<ApiKeyRow> listApiKeys(String workspaceId, PageRequest page);

  /**
   * How many of the workspace's keys count towards its cap: those neither revoked nor expired at
   * {@code now}. Reads only the index entries of such keys (revoked ones are not in it), so its
   * cost does not grow with the number of revoked keys.
   */
  int countLiveApiKeys(String workspaceId, Instant now);

  /**
   * Sets the key's {@code revoked_at} unless it is already revoked, and then appends the key to the
   * store-wide revocation log ({@link #apiKeyRevocationsAfter}); whether this call revoked it.
   * Entries of the log become visible in the order of their sequence numbers: a transaction that
   * sees an entry sees every entry with a lower number.
   */
  boolean revokeApiKey(String workspaceId, String keyId, Instant at);

  /**
   * The revocation log's entries after {@code seq}, lowest first, at most {@code limit}: a range
   * read on the log's key, whose cost depends on the entries returned only.
   */
  List<ApiKeyRow.Revocation> apiKeyRevocationsAfter(long seq, int limit);

  /** The highest sequence number in the revocation log, or 0 when it is empty. */
  long lastApiKeyRevocation();

  /**
   * Records uses of keys: sets {@code last_used_at} where it is unset or at least {@code
   * minInterval} before the use, and fills in an unknown prefix.
   */
  void recordApiKeyUses(List<ApiKeyRow.Use> uses, Duration minInterval);

  /** Every signing key of the workspace, oldest first. */
  List<SigningKeyRow> signingKeys(String workspaceId);

  void insertSigningKey(SigningKeyRow row);

  void updateSigningKey(SigningKeyRow row);
}
