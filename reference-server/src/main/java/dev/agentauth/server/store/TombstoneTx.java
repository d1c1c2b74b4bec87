package dev.agentauth.server.store;

import java.util.Optional;

/** Tombstoned resources. */
public interface TombstoneTx {

  Optional<TombstoneRow> tombstone(String workspaceId, String resource);

  void insertTombstone(TombstoneRow row);

  Page<TombstoneRow> listTombstones(String workspaceId, PageRequest page);
}
