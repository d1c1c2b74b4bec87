package dev.agentauth.server.store.jdbc;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.server.store.Store;
import dev.agentauth.server.store.StoreException;
import dev.agentauth.verifier.signing.SignedReceiptText;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The SQLite transaction: no named locks (one write transaction runs at a time), a group's keys as
 * a JSON array ({@code json_each}), batched inserts, and only the signature object stored ({@code
 * signed_json} is a virtual column that rebuilds the text, migration V3).
 */
final class SqliteTx extends JdbcTx {

  SqliteTx(
      Statements statements,
      MasterKey masterKey,
      ObjectMapper json,
      Map<String, Object> decoded,
      CheckTargetCache checkTargets) {
    super(statements, Dialect.SQLITE, masterKey, json, decoded, checkTargets);
  }

  @Override
  String groupKeysSource() {
    return "(SELECT json_extract(value, '$[0]') AS ws, json_extract(value, '$[1]') AS id,"
        + " json_extract(value, '$[2]') AS resource FROM json_each(?)) k";
  }

  @Override
  String groupTargetsSuffix() {
    return "";
  }

  @Override
  void bindGroupKeys(PreparedStatement ps, List<Store.GroupKey> keys) throws SQLException {
    List<List<String>> rows = new ArrayList<>(keys.size());
    for (Store.GroupKey k : keys) {
      rows.add(Arrays.asList(k.workspaceId(), k.authorizationId(), k.resource()));
    }
    ps.setString(1, toJson(rows));
  }

  @Override
  Object storedSignature(ReceiptRow row, ReceiptContexts.Cut cut) {
    return row.signedJson() == null ? null : SignedReceiptText.signatureObjectOf(row.signedJson());
  }

  /** SQLite runs one write transaction at a time: nothing to lock. */
  @Override
  void advisoryLock(String function, String name) {}

  /**
   * {@code column} in a filter that must not choose the index: SQLite's unary {@code +} keeps the
   * planner on the index of the page's key range, so that the window bounds the rows read.
   */
  @Override
  String unindexed(String column) {
    return "+" + column;
  }

  /**
   * SQLite stores a receipt's signature member, not its whole signed text: {@code signed_json} is a
   * virtual column there that rebuilds the text (migration V3).
   */
  static final String INSERT_RECEIPT_SQLITE =
      "INSERT INTO receipts ("
          + RECEIPT_COLUMNS.replace("signed_json", "signature")
          + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT (workspace_id, receipt_id) DO NOTHING";

  @Override
  void insertReceipts(List<ReceiptRow> rows) {
    if (rows.isEmpty()) {
      return;
    }
    List<ReceiptContexts.Cut> cuts = cutAndStoreContexts(rows);
    try {
      PreparedStatement ps = statements.prepare(INSERT_RECEIPT_SQLITE);
      for (int r = 0; r < rows.size(); r++) {
        Object[] params = receiptParams(rows.get(r), cuts.get(r));
        for (int i = 0; i < params.length; i++) {
          set(ps, i + 1, params[i]);
        }
        ps.addBatch();
      }
      int[] counts = ps.executeBatch();
      for (int i = 0; i < counts.length; i++) {
        if (counts[i] == 0) {
          throw new StoreException("duplicate receipt id " + rows.get(i).receiptId());
        }
      }
    } catch (SQLException e) {
      throw failure(INSERT_RECEIPT_SQLITE, e);
    }
  }

  /**
   * SQLite stores the signature member only, and only if the given text is exactly the stored
   * payload with that member appended: the text {@code signed_json} rebuilds is then the one given.
   * A receipt stored with its context cut out (see {@link ReceiptContexts}) is compared cut: the
   * given text with the same context cut out at the same place, and the context's hash.
   */
  static final String MARK_SIGNED_SQLITE =
      "UPDATE receipts SET signature = ?"
          + " WHERE workspace_id = ? AND receipt_id = ? AND signature IS NULL"
          + " AND ((context_sha256 IS NULL"
          + " AND substr(payload_json, 1, length(payload_json) - 1) || "
          + SignedReceiptText.sqlSeparatorLiteral()
          + " || ? || '}' = ?)"
          + " OR (context_sha256 = ? AND context_at = ?"
          + " AND substr(payload_json, 1, length(payload_json) - 1) || "
          + SignedReceiptText.sqlSeparatorLiteral()
          + " || ? || '}' = ?))";

  /** Binds {@link #MARK_SIGNED_SQLITE} for a text whose signature member is {@code member}. */
  private static void bindMarkSigned(
      PreparedStatement ps, String workspaceId, String receiptId, String member, String signedJson)
      throws SQLException {
    ReceiptContexts.Cut cut = ReceiptContexts.cut(signedJson);
    ps.setString(1, member);
    ps.setString(2, workspaceId);
    ps.setString(3, receiptId);
    ps.setString(4, member);
    ps.setString(5, signedJson);
    set(ps, 6, cut.sha256());
    set(ps, 7, cut.at() == null ? NULL_INTEGER : cut.at());
    ps.setString(8, member);
    ps.setString(9, cut.text());
  }

  @Override
  public boolean markSigned(String workspaceId, String receiptId, String signedJson) {
    String member = SignedReceiptText.signatureObjectOf(Objects.requireNonNull(signedJson));
    if (member == null) {
      return false;
    }
    try {
      PreparedStatement ps = statements.prepare(MARK_SIGNED_SQLITE);
      bindMarkSigned(ps, workspaceId, receiptId, member, signedJson);
      return ps.executeUpdate() == 1;
    } catch (SQLException e) {
      throw failure(MARK_SIGNED_SQLITE, e);
    }
  }

  @Override
  public boolean[] markSignedAll(List<Signed> receipts) {
    boolean[] stored = new boolean[receipts.size()];
    if (receipts.isEmpty()) {
      return stored;
    }
    try {
      PreparedStatement ps = statements.prepare(MARK_SIGNED_SQLITE);
      List<Integer> batched = new ArrayList<>(receipts.size());
      for (int i = 0; i < receipts.size(); i++) {
        Signed r = receipts.get(i);
        String member = SignedReceiptText.signatureObjectOf(Objects.requireNonNull(r.signedJson()));
        if (member == null) {
          continue; // not a signed receipt text: refused, as markSigned refuses it
        }
        bindMarkSigned(ps, r.workspaceId(), r.receiptId(), member, r.signedJson());
        ps.addBatch();
        batched.add(i);
      }
      if (batched.isEmpty()) {
        return stored;
      }
      int[] counts = ps.executeBatch();
      for (int k = 0; k < counts.length; k++) {
        Signed r = receipts.get(batched.get(k));
        stored[batched.get(k)] =
            counts[k] == Statement.SUCCESS_NO_INFO
                ? receipt(r.workspaceId(), r.receiptId())
                    .map(row -> r.signedJson().equals(row.signedJson()))
                    .orElse(false)
                : counts[k] == 1;
      }
      return stored;
    } catch (SQLException e) {
      throw failure(MARK_SIGNED_SQLITE, e);
    }
  }
}
