package dev.agentauth.server.store.jdbc;

import dev.agentauth.server.store.LogTx.Checkpoint;
import dev.agentauth.server.store.LogTx.Cosignature;
import dev.agentauth.server.store.LogTx.Entry;
import dev.agentauth.server.store.LogTx.Node;
import dev.agentauth.server.store.LogTx.NodeId;
import dev.agentauth.server.store.StoreException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The receipt log's statements of a {@link JdbcTx} (migration V13 on PostgreSQL, V14 on SQLite):
 * the same SQL on both databases but for how a signed receipt is recognised.
 */
final class JdbcLog {
  private final JdbcTx tx;

  /** "Signed", as the partial index {@code receipts_unlogged} is declared. */
  private final String signed;

  JdbcLog(JdbcTx tx, Dialect dialect) {
    this.tx = tx;
    this.signed = dialect == Dialect.SQLITE ? "signature IS NOT NULL" : "signed_json IS NOT NULL";
  }

  long size(String workspaceId) {
    return tx.one(
            "SELECT tree_size FROM log_heads WHERE workspace_id = ?",
            rs -> rs.getLong(1),
            workspaceId)
        .orElse(0L);
  }

  List<dev.agentauth.server.store.ReceiptRow> unlogged(String workspaceId, int limit) {
    return tx.query(
        "SELECT "
            + JdbcTx.RECEIPT_SELECT
            + " FROM receipts WHERE workspace_id = ? AND "
            + signed
            + " AND log_index IS NULL ORDER BY receipt_id LIMIT ?",
        JdbcTx::receiptRow,
        workspaceId,
        limit);
  }

  List<String> unloggedWorkspaces(String afterWorkspaceId, int limit) {
    // One seek of receipts_unlogged per workspace (a loose index scan, as pendingWorkspaces).
    List<String> out = new ArrayList<>();
    String after = afterWorkspaceId;
    while (out.size() < limit) {
      String where = "WHERE " + signed + " AND log_index IS NULL";
      Optional<String> next =
          after == null
              ? tx.one(
                  "SELECT workspace_id FROM receipts " + where + " ORDER BY workspace_id LIMIT 1",
                  rs -> rs.getString(1))
              : tx.one(
                  "SELECT workspace_id FROM receipts "
                      + where
                      + " AND workspace_id > ? ORDER BY workspace_id LIMIT 1",
                  rs -> rs.getString(1),
                  after);
      if (next.isEmpty()) {
        break;
      }
      after = next.get();
      out.add(after);
    }
    return out;
  }

  boolean append(String workspaceId, long fromSize, List<String> receiptIds, List<Node> nodes) {
    long toSize = fromSize + receiptIds.size();
    int moved =
        fromSize == 0
            ? tx.update(
                "INSERT INTO log_heads (workspace_id, tree_size) VALUES (?, ?)"
                    + " ON CONFLICT (workspace_id) DO NOTHING",
                workspaceId,
                toSize)
            : tx.update(
                "UPDATE log_heads SET tree_size = ? WHERE workspace_id = ? AND tree_size = ?",
                toSize,
                workspaceId,
                fromSize);
    if (moved == 0) {
      return false;
    }
    String setIndex =
        "UPDATE receipts SET log_index = ? WHERE workspace_id = ? AND receipt_id = ? AND "
            + signed
            + " AND log_index IS NULL";
    try {
      PreparedStatement ps = tx.statements.prepare(setIndex);
      for (int i = 0; i < receiptIds.size(); i++) {
        ps.setLong(1, fromSize + i);
        ps.setString(2, workspaceId);
        ps.setString(3, receiptIds.get(i));
        ps.addBatch();
      }
      int[] counts = ps.executeBatch();
      for (int i = 0; i < counts.length; i++) {
        if (counts[i] == 0) {
          throw new StoreException(
              "receipt "
                  + receiptIds.get(i)
                  + " of workspace "
                  + workspaceId
                  + " is missing, unsigned or in the log already; nothing was appended");
        }
      }
    } catch (SQLException e) {
      throw JdbcTx.failure(setIndex, e);
    }
    String insertNode =
        "INSERT INTO log_nodes (workspace_id, level, idx, hash) VALUES (?, ?, ?, ?)";
    try {
      PreparedStatement ps = tx.statements.prepare(insertNode);
      for (Node n : nodes) {
        ps.setString(1, workspaceId);
        ps.setInt(2, n.id().level());
        ps.setLong(3, n.id().index());
        ps.setBytes(4, n.hash());
        ps.addBatch();
      }
      ps.executeBatch();
    } catch (SQLException e) {
      throw JdbcTx.failure(insertNode, e);
    }
    return true;
  }

  List<String> uncheckpointed(int limit) {
    return tx.query(
        "SELECT h.workspace_id FROM log_heads h WHERE h.tree_size > COALESCE((SELECT"
            + " max(c.tree_size) FROM log_checkpoints c WHERE c.workspace_id = h.workspace_id), 0)"
            + " ORDER BY h.workspace_id LIMIT ?",
        rs -> rs.getString(1),
        limit);
  }

  Map<NodeId, byte[]> nodes(String workspaceId, Collection<NodeId> ids) {
    Map<NodeId, byte[]> out = new HashMap<>();
    if (ids.isEmpty()) {
      return out;
    }
    // One primary-key lookup per node, in one statement: both planners use the key for each arm
    // of a UNION ALL, where an OR of (level, idx) pairs can end in a scan of the workspace's nodes.
    StringBuilder sql = new StringBuilder();
    List<Object> params = new ArrayList<>(3 * ids.size());
    for (NodeId id : ids) {
      sql.append(sql.length() == 0 ? "" : " UNION ALL ")
          .append("SELECT level, idx, hash FROM log_nodes WHERE workspace_id = ? AND level = ?")
          .append(" AND idx = ?");
      params.add(workspaceId);
      params.add(id.level());
      params.add(id.index());
    }
    for (Node n :
        tx.query(
            sql.toString(),
            rs -> new Node(new NodeId(rs.getInt(1), rs.getLong(2)), rs.getBytes(3)),
            params.toArray())) {
      out.put(n.id(), n.hash());
    }
    return out;
  }

  OptionalLong index(String workspaceId, String receiptId) {
    return tx.one(
            "SELECT log_index FROM receipts WHERE workspace_id = ? AND receipt_id = ?",
            rs -> {
              long v = rs.getLong(1);
              return rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(v);
            },
            workspaceId,
            receiptId)
        .orElse(OptionalLong.empty());
  }

  List<Entry> entries(String workspaceId, long start, int limit) {
    return tx.query(
        "SELECT "
            + JdbcTx.RECEIPT_SELECT
            + ", log_index FROM receipts WHERE workspace_id = ? AND log_index IS NOT NULL"
            + " AND log_index >= ? ORDER BY log_index LIMIT ?",
        rs -> new Entry(rs.getLong(15), JdbcTx.receiptRow(rs)),
        workspaceId,
        start,
        limit);
  }

  private static final String CHECKPOINT_SELECT =
      "SELECT workspace_id, tree_size, root_hash, note, issued_at FROM log_checkpoints";

  private static Checkpoint checkpoint(ResultSet rs) throws SQLException {
    return new Checkpoint(
        rs.getString(1),
        rs.getLong(2),
        rs.getBytes(3),
        rs.getString(4),
        Instant.ofEpochMilli(rs.getLong(5)));
  }

  boolean insertCheckpoint(Checkpoint c) {
    return tx.update(
            "INSERT INTO log_checkpoints (workspace_id, tree_size, root_hash, note, issued_at)"
                + " VALUES (?, ?, ?, ?, ?) ON CONFLICT (workspace_id, tree_size) DO NOTHING",
            c.workspaceId(),
            c.treeSize(),
            c.rootHash(),
            c.note(),
            c.at())
        == 1;
  }

  Optional<Checkpoint> latestCheckpoint(String workspaceId) {
    return tx.one(
        CHECKPOINT_SELECT + " WHERE workspace_id = ? ORDER BY tree_size DESC LIMIT 1",
        JdbcLog::checkpoint,
        workspaceId);
  }

  Optional<Checkpoint> checkpoint(String workspaceId, long treeSize) {
    return tx.one(
        CHECKPOINT_SELECT + " WHERE workspace_id = ? AND tree_size = ?",
        JdbcLog::checkpoint,
        workspaceId,
        treeSize);
  }

  boolean insertCosignature(Cosignature c) {
    return tx.update(
            "INSERT INTO log_cosignatures (workspace_id, tree_size, witness, line, accepted_at)"
                + " VALUES (?, ?, ?, ?, ?)"
                + " ON CONFLICT (workspace_id, tree_size, witness) DO NOTHING",
            c.workspaceId(),
            c.treeSize(),
            c.witness(),
            c.line(),
            c.at())
        == 1;
  }

  List<Cosignature> cosignatures(String workspaceId, long treeSize) {
    return tx.query(
        "SELECT workspace_id, tree_size, witness, line, accepted_at FROM log_cosignatures"
            + " WHERE workspace_id = ? AND tree_size = ? ORDER BY witness",
        rs ->
            new Cosignature(
                rs.getString(1),
                rs.getLong(2),
                rs.getString(3),
                rs.getString(4),
                Instant.ofEpochMilli(rs.getLong(5))),
        workspaceId,
        treeSize);
  }

  OptionalLong newestCosignedSize(String workspaceId, Collection<String> witnesses, int atLeast) {
    if (witnesses.isEmpty() || atLeast > witnesses.size()) {
      return OptionalLong.empty();
    }
    List<Object> params = new ArrayList<>();
    params.add(workspaceId);
    params.addAll(witnesses);
    params.add(atLeast);
    return tx.one(
            "SELECT tree_size FROM log_cosignatures WHERE workspace_id = ? AND witness IN ("
                + String.join(", ", java.util.Collections.nCopies(witnesses.size(), "?"))
                + ") GROUP BY tree_size HAVING count(*) >= ? ORDER BY tree_size DESC LIMIT 1",
            rs -> OptionalLong.of(rs.getLong(1)),
            params.toArray())
        .orElse(OptionalLong.empty());
  }

  List<String> witnesses(String workspaceId) {
    return tx.one(
            "SELECT vkeys FROM log_witnesses WHERE workspace_id = ?",
            rs -> rs.getString(1),
            workspaceId)
        .map(v -> v.isEmpty() ? List.<String>of() : List.of(v.split("\n")))
        .orElse(List.of());
  }

  void setWitnesses(String workspaceId, List<String> vkeys) {
    tx.update(
        "INSERT INTO log_witnesses (workspace_id, vkeys) VALUES (?, ?)"
            + " ON CONFLICT (workspace_id) DO UPDATE SET vkeys = excluded.vkeys",
        workspaceId,
        String.join("\n", vkeys));
  }
}
