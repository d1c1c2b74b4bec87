package dev.agentauth.server.store;

import dev.agentauth.server.store.LogTx.Checkpoint;
import dev.agentauth.server.store.LogTx.Cosignature;
import dev.agentauth.server.store.LogTx.Entry;
import dev.agentauth.server.store.LogTx.Node;
import dev.agentauth.server.store.LogTx.NodeId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiFunction;

/**
 * The receipt log of a {@link MemoryStore}, under its lock; every change records its inverse on the
 * store's undo stack. Perfect subtrees of one level are contiguous from index 0, so each level is a
 * list. A leaf whose receipt the store evicted keeps its place and hashes (proofs and checkpoints
 * stay valid) but is left out of {@link #entries}.
 */
final class MemoryLog {
  private static final class WorkspaceLog {
    final List<String> leaves = new ArrayList<>();
    final Map<String, Long> indexes = new HashMap<>();
    final List<List<byte[]>> levels = new ArrayList<>();
    final TreeSet<String> unlogged = new TreeSet<>();
    final TreeMap<Long, Checkpoint> checkpoints = new TreeMap<>();
    final Map<Long, TreeMap<String, Cosignature>> cosignatures = new HashMap<>();
    List<String> witnesses = List.of();
  }

  private final Map<String, WorkspaceLog> logs = new HashMap<>();
  private final Deque<Runnable> undo;
  private final BiFunction<String, String, ReceiptRow> receipts;

  /**
   * @param receipts a receipt of the store by workspace and id, or null
   */
  MemoryLog(Deque<Runnable> undo, BiFunction<String, String, ReceiptRow> receipts) {
    this.undo = undo;
    this.receipts = receipts;
  }

  private WorkspaceLog log(String workspaceId) {
    return logs.computeIfAbsent(workspaceId, w -> new WorkspaceLog());
  }

  /** A receipt was signed: it waits for the log. */
  void signed(String workspaceId, String receiptId) {
    TreeSet<String> unlogged = log(workspaceId).unlogged;
    if (unlogged.add(receiptId)) {
      undo.push(() -> unlogged.remove(receiptId));
    }
  }

  /** A receipt was evicted (not undone: eviction happens after commit). */
  void evicted(String workspaceId, String receiptId) {
    WorkspaceLog l = logs.get(workspaceId);
    if (l != null) {
      l.unlogged.remove(receiptId);
    }
  }

  long size(String workspaceId) {
    WorkspaceLog l = logs.get(workspaceId);
    return l == null ? 0 : l.leaves.size();
  }

  List<ReceiptRow> unlogged(String workspaceId, int limit) {
    WorkspaceLog l = logs.get(workspaceId);
    List<ReceiptRow> out = new ArrayList<>();
    if (l == null) {
      return out;
    }
    for (String id : l.unlogged) {
      if (out.size() == limit) {
        break;
      }
      ReceiptRow r = receipts.apply(workspaceId, id);
      if (r != null) {
        out.add(r);
      }
    }
    return out;
  }

  List<String> unloggedWorkspaces(String after, int limit) {
    TreeSet<String> ids = new TreeSet<>();
    logs.forEach(
        (ws, l) -> {
          if (!l.unlogged.isEmpty() && (after == null || ws.compareTo(after) > 0)) {
            ids.add(ws);
          }
        });
    return ids.stream().limit(limit).toList();
  }

  boolean append(String workspaceId, long fromSize, List<String> receiptIds, List<Node> nodes) {
    WorkspaceLog l = log(workspaceId);
    if (l.leaves.size() != fromSize) {
      return false;
    }
    for (String id : receiptIds) {
      ReceiptRow r = receipts.apply(workspaceId, id);
      if (r == null || !r.isSigned() || l.indexes.containsKey(id)) {
        throw new StoreException(
            "receipt "
                + id
                + " of workspace "
                + workspaceId
                + " is missing, unsigned or in the log already; nothing was appended");
      }
    }
    Set<String> taken = new HashSet<>();
    for (int i = 0; i < receiptIds.size(); i++) {
      String id = receiptIds.get(i);
      l.leaves.add(id);
      l.indexes.put(id, fromSize + i);
      if (l.unlogged.remove(id)) {
        taken.add(id);
      }
    }
    List<int[]> added = new ArrayList<>();
    for (Node n : nodes) {
      int level = n.id().level();
      while (l.levels.size() <= level) {
        l.levels.add(new ArrayList<>());
      }
      List<byte[]> row = l.levels.get(level);
      if (row.size() != n.id().index()) {
        throw new StoreException("log node " + n.id() + " is not the next one of its level");
      }
      row.add(n.hash().clone());
      added.add(new int[] {level});
    }
    undo.push(
        () -> {
          for (int i = added.size() - 1; i >= 0; i--) {
            List<byte[]> row = l.levels.get(added.get(i)[0]);
            row.remove(row.size() - 1);
          }
          for (String id : receiptIds) {
            l.indexes.remove(id);
            l.leaves.remove(l.leaves.size() - 1);
          }
          l.unlogged.addAll(taken);
        });
    return true;
  }

  List<String> uncheckpointed(int limit) {
    TreeSet<String> ids = new TreeSet<>();
    logs.forEach(
        (ws, l) -> {
          long covered = l.checkpoints.isEmpty() ? 0 : l.checkpoints.lastKey();
          if (l.leaves.size() > covered) {
            ids.add(ws);
          }
        });
    return ids.stream().limit(limit).toList();
  }

  Map<NodeId, byte[]> nodes(String workspaceId, Collection<NodeId> ids) {
    Map<NodeId, byte[]> out = new HashMap<>();
    WorkspaceLog l = logs.get(workspaceId);
    if (l == null) {
      return out;
    }
    for (NodeId id : ids) {
      if (id.level() < l.levels.size() && id.index() < l.levels.get(id.level()).size()) {
        out.put(id, l.levels.get(id.level()).get((int) id.index()).clone());
      }
    }
    return out;
  }

  OptionalLong index(String workspaceId, String receiptId) {
    WorkspaceLog l = logs.get(workspaceId);
    Long i = l == null ? null : l.indexes.get(receiptId);
    return i == null ? OptionalLong.empty() : OptionalLong.of(i);
  }

  List<Entry> entries(String workspaceId, long start, int limit) {
    WorkspaceLog l = logs.get(workspaceId);
    List<Entry> out = new ArrayList<>();
    if (l == null) {
      return out;
    }
    for (long i = Math.max(0, start); i < l.leaves.size() && out.size() < limit; i++) {
      ReceiptRow r = receipts.apply(workspaceId, l.leaves.get((int) i));
      if (r != null) {
        out.add(new Entry(i, r));
      }
    }
    return out;
  }

  boolean insertCheckpoint(Checkpoint c) {
    TreeMap<Long, Checkpoint> t = log(c.workspaceId()).checkpoints;
    if (t.containsKey(c.treeSize())) {
      return false;
    }
    t.put(c.treeSize(), c);
    undo.push(() -> t.remove(c.treeSize()));
    return true;
  }

  Optional<Checkpoint> latestCheckpoint(String workspaceId) {
    WorkspaceLog l = logs.get(workspaceId);
    return l == null || l.checkpoints.isEmpty()
        ? Optional.empty()
        : Optional.of(l.checkpoints.lastEntry().getValue());
  }

  Optional<Checkpoint> checkpoint(String workspaceId, long treeSize) {
    WorkspaceLog l = logs.get(workspaceId);
    return l == null ? Optional.empty() : Optional.ofNullable(l.checkpoints.get(treeSize));
  }

  boolean insertCosignature(Cosignature c) {
    Map<Long, TreeMap<String, Cosignature>> all = log(c.workspaceId()).cosignatures;
    TreeMap<String, Cosignature> t = all.computeIfAbsent(c.treeSize(), s -> new TreeMap<>());
    if (t.containsKey(c.witness())) {
      return false;
    }
    t.put(c.witness(), c);
    undo.push(() -> t.remove(c.witness()));
    return true;
  }

  List<Cosignature> cosignatures(String workspaceId, long treeSize) {
    WorkspaceLog l = logs.get(workspaceId);
    TreeMap<String, Cosignature> t = l == null ? null : l.cosignatures.get(treeSize);
    return t == null ? List.of() : List.copyOf(t.values());
  }

  OptionalLong newestCosignedSize(String workspaceId, Collection<String> witnesses, int atLeast) {
    WorkspaceLog l = logs.get(workspaceId);
    if (l == null) {
      return OptionalLong.empty();
    }
    long best = -1;
    for (Map.Entry<Long, TreeMap<String, Cosignature>> e : l.cosignatures.entrySet()) {
      long n = e.getValue().keySet().stream().filter(witnesses::contains).count();
      if (n >= atLeast && e.getKey() > best) {
        best = e.getKey();
      }
    }
    return best < 0 ? OptionalLong.empty() : OptionalLong.of(best);
  }

  List<String> witnesses(String workspaceId) {
    WorkspaceLog l = logs.get(workspaceId);
    return l == null ? List.of() : l.witnesses;
  }

  void setWitnesses(String workspaceId, List<String> vkeys) {
    WorkspaceLog l = log(workspaceId);
    List<String> before = l.witnesses;
    l.witnesses = List.copyOf(vkeys);
    undo.push(() -> l.witnesses = before);
  }
}
