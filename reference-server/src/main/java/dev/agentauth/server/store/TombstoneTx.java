package dev.agentauth.server.store;

import java.util.List;
import java.util.Optional;

/** Tombstoned resources: exact strings, and patterns (at most a few per workspace). */
public interface TombstoneTx {

  Optional<TombstoneRow> tombstone(String workspaceId, String resource);

  void insertTombstone(TombstoneRow row);

  Page<TombstoneRow> listTombstones(String workspaceId, PageRequest page);

  /** The pattern tombstone of exactly this pattern text. */
  Optional<TombstoneRow> tombstonePattern(String workspaceId, String resourcePattern);

  /** Inserts a pattern tombstone ({@code row.resourcePattern()} set). */
  void insertTombstonePattern(TombstoneRow row);

  /**
   * Every pattern of the workspace's pattern tombstones, in pattern order. Their number is bounded
   * when they are created, so this is a small read.
   */
  List<String> tombstonePatterns(String workspaceId);

  /** The workspace's pattern tombstones in pattern order, a page at a time. */
  Page<TombstoneRow> listTombstonePatterns(String workspaceId, PageRequest page);
}
