package dev.agentauth.server.store;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The receipt log of each workspace (decisions.md §18): its leaves (a signed receipt each, by log
 * index), the hash of every perfect subtree (a {@link NodeId}), the size it has grown to, the
 * checkpoints issued and the witnesses' cosignatures.
 *
 * <p>Leaves are appended only by {@link #appendLog}, which checks the size the caller started from
 * (a compare-and-set on the workspace's log head row, which it locks until the transaction ends):
 * two integrators — in any server instance — never both append at the same size, so the log never
 * has a gap, a duplicate or a reordered leaf.
 */
public interface LogTx {

  /**
   * A perfect subtree: the {@code 2^level} leaves from {@code index * 2^level}. Level 0 is a leaf.
   */
  record NodeId(int level, long index) {}

  /** A perfect subtree's hash. */
  record Node(NodeId id, byte[] hash) {}

  /** A leaf: its index and its signed receipt. */
  record Entry(long index, ReceiptRow receipt) {}

  /** An issued checkpoint: its size, root, signed note and when it was issued. */
  record Checkpoint(String workspaceId, long treeSize, byte[] rootHash, String note, Instant at) {}

  /**
   * A witness's accepted cosignature of a checkpoint.
   *
   * @param witness the witness's name and key hash, {@code <name>+<8 hex digits>}
   * @param line the cosignature line as the witness sent it (without its line feed)
   */
  record Cosignature(String workspaceId, long treeSize, String witness, String line, Instant at) {}

  /** The workspace's log size: how many leaves it holds (0 for none). */
  long logSize(String workspaceId);

  /**
   * Signed receipts of the workspace that are not in its log yet, in receipt id order, at most
   * {@code limit}.
   */
  List<ReceiptRow> unloggedReceipts(String workspaceId, int limit);

  /**
   * Workspaces holding signed receipts not in their log yet, in id order after {@code
   * afterWorkspaceId} (null: from the first), at most {@code limit}.
   */
  List<String> unloggedWorkspaces(String afterWorkspaceId, int limit);

  /**
   * Appends {@code receiptIds} to the workspace's log at indexes {@code fromSize}, {@code fromSize
   * + 1}, … and stores {@code nodes} (the perfect subtrees the new leaves complete), if the log's
   * size is {@code fromSize}; the log's size becomes {@code fromSize + receiptIds.size()}. Returns
   * false, changing nothing, when the size is not {@code fromSize} (another integrator appended
   * first). Throws, and the transaction must roll back, when a receipt is missing, unsigned or
   * already in the log.
   */
  boolean appendLog(String workspaceId, long fromSize, List<String> receiptIds, List<Node> nodes);

  /**
   * Workspaces whose log holds leaves that no issued checkpoint covers, in id order, at most {@code
   * limit}: what is left when an integrator stopped between growing a log and issuing its
   * checkpoint.
   */
  List<String> uncheckpointedWorkspaces(int limit);

  /** The stored hashes among {@code ids}, in one query. */
  Map<NodeId, byte[]> logNodes(String workspaceId, Collection<NodeId> ids);

  /** The log index of a receipt; empty when it is not in the log (yet). */
  OptionalLong logIndex(String workspaceId, String receiptId);

  /** Leaves from {@code start} in index order, at most {@code limit}. */
  List<Entry> logEntries(String workspaceId, long start, int limit);

  /** Stores an issued checkpoint, unless one of its size is stored already (then false). */
  boolean insertCheckpoint(Checkpoint checkpoint);

  /** The issued checkpoint of the largest size. */
  Optional<Checkpoint> latestCheckpoint(String workspaceId);

  /** The issued checkpoint of {@code treeSize}. */
  Optional<Checkpoint> checkpoint(String workspaceId, long treeSize);

  /** Stores a cosignature unless the witness cosigned that checkpoint already (then false). */
  boolean insertCosignature(Cosignature cosignature);

  /** The cosignatures of the checkpoint of {@code treeSize}, by witness. */
  List<Cosignature> cosignatures(String workspaceId, long treeSize);

  /**
   * The largest size whose checkpoint holds cosignatures of at least {@code atLeast} of {@code
   * witnesses} (each {@code <name>+<key hash>}).
   */
  OptionalLong newestCosignedSize(String workspaceId, Collection<String> witnesses, int atLeast);

  /** The workspace's witness keys (C2SP vkeys), in the order they were set; empty for none. */
  List<String> logWitnesses(String workspaceId);

  /** Replaces the workspace's witness keys. */
  void setLogWitnesses(String workspaceId, List<String> vkeys);
}
