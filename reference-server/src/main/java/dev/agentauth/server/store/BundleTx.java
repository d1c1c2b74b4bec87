package dev.agentauth.server.store;

import java.util.Optional;

/**
 * Agent scope bundles: ids chosen by clients; one row per id, soft-deleted rows kept until
 * re-created.
 */
public interface BundleTx {

  Optional<BundleRow> bundle(String workspaceId, String bundleId);

  /** Inserts or replaces the row with this workspace and bundle id. */
  void upsertBundle(BundleRow row);

  Page<BundleRow> listActiveBundles(String workspaceId, PageRequest page);
}
