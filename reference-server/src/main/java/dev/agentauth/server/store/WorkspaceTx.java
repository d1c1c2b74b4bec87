package dev.agentauth.server.store;

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

  Optional<ApiKeyRow> apiKey(String keyHash);

  void insertApiKey(ApiKeyRow row);

  /** Every signing key of the workspace, oldest first. */
  List<SigningKeyRow> signingKeys(String workspaceId);

  void insertSigningKey(SigningKeyRow row);

  void updateSigningKey(SigningKeyRow row);
}
