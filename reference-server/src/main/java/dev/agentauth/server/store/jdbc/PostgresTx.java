package dev.agentauth.server.store.jdbc;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.server.store.Store;
import dev.agentauth.server.store.StoreException;
import dev.agentauth.verifier.signing.SignedReceiptText;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.postgresql.PGStatement;

/**
 * The PostgreSQL transaction: advisory locks for named locks, a group's keys as arrays ({@code
 * unnest}) locked in key order, receipts and signatures stored in one statement per batch, and the
 * whole signed text in {@code signed_json}.
 */
final class PostgresTx extends JdbcTx {

  PostgresTx(
      Statements statements, MasterKey masterKey, ObjectMapper json, Map<String, Object> decoded) {
    super(statements, Dialect.POSTGRES, masterKey, json, decoded, null);
  }

  @Override
  String groupKeysSource() {
    return "unnest(?::text[], ?::text[], ?::text[]) AS k(ws, id, resource)";
  }

  @Override
  String groupTargetsSuffix() {
    return " ORDER BY a.workspace_id, a.authorization_id FOR UPDATE OF a";
  }

  @Override
  void bindGroupKeys(PreparedStatement ps, List<Store.GroupKey> keys) throws SQLException {
    String[][] columns = new String[3][keys.size()];
    for (int i = 0; i < keys.size(); i++) {
      Store.GroupKey k = keys.get(i);
      columns[0][i] = k.workspaceId();
      columns[1][i] = k.authorizationId();
      columns[2][i] = k.resource();
    }
    bindArrays(ps, THREE_TEXTS, columns);
  }

  @Override
  Object storedSignature(ReceiptRow row, ReceiptContexts.Cut cut) {
    return cut.cutAlike(row.signedJson());
  }

  /**
   * Takes a transaction-scoped PostgreSQL advisory lock on a 64-bit id derived from the name (the
   * first 8 bytes of its SHA-256). SQLite needs none: it runs one write transaction at a time.
   */
  @Override
  void advisoryLock(String function, String name) {
    byte[] digest;
    try {
      digest = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    query("SELECT " + function + "(?)", rs -> null, ByteBuffer.wrap(digest).getLong());
  }

  @Override
  String unindexed(String column) {
    return column;
  }

  /** PostgreSQL inserts a whole batch of receipts with one statement. */
  static final String INSERT_RECEIPTS_POSTGRES =
      "INSERT INTO receipts ("
          + RECEIPT_COLUMNS
          + ") SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[],"
          + " ?::text[], ?::text[], ?::text[], ?::text[], ?::bigint[], ?::text[], ?::text[],"
          + " ?::integer[], ?::text[])"
          + " ON CONFLICT (workspace_id, receipt_id) DO NOTHING";

  /** Column types of {@link #INSERT_RECEIPTS_POSTGRES}, in {@link #receiptParams} order. */
  static final String[] RECEIPT_ARRAY_TYPES = {
    "text", "text", "text", "text", "text", "text", "text", "text", "text", "bigint", "text",
    "text", "integer", "text"
  };

  @Override
  void insertReceipts(List<ReceiptRow> rows) {
    if (rows.isEmpty()) {
      return;
    }
    int n = rows.size();
    List<ReceiptContexts.Cut> cuts = cutAndStoreContexts(rows);
    Object[][] columns = new Object[RECEIPT_ARRAY_TYPES.length][n];
    for (int i = 0; i < n; i++) {
      Object[] params = receiptParams(rows.get(i), cuts.get(i));
      for (int c = 0; c < params.length; c++) {
        Object v = params[c];
        columns[c][i] =
            v instanceof Instant t ? (Object) t.toEpochMilli() : v instanceof Null ? null : v;
      }
    }
    try {
      PreparedStatement ps = statements.prepare(INSERT_RECEIPTS_POSTGRES);
      bindArrays(ps, RECEIPT_ARRAY_TYPES, columns);
      int inserted = ps.executeUpdate();
      if (inserted != n) {
        throw new StoreException(
            "duplicate receipt id among " + n + " receipts (" + inserted + " inserted)");
      }
    } catch (SQLException e) {
      throw failure(INSERT_RECEIPTS_POSTGRES, e);
    }
  }

  @Override
  public boolean markSigned(String workspaceId, String receiptId, String signedJson) {
    if (SignedReceiptText.signatureObjectOf(Objects.requireNonNull(signedJson)) == null) {
      return false;
    }
    ReceiptContexts.Cut cut = ReceiptContexts.cut(signedJson);
    return update(
            MARK_SIGNED_POSTGRES,
            signedJson,
            cut.text(),
            workspaceId,
            receiptId,
            signedJson,
            cut.sha256(),
            cut.at() == null ? NULL_INTEGER : cut.at(),
            cut.text())
        == 1;
  }

  @Override
  public boolean[] markSignedAll(List<Signed> receipts) {
    if (receipts.isEmpty()) {
      return new boolean[0];
    }
    Object[][] columns = new Object[6][receipts.size()];
    for (int i = 0; i < receipts.size(); i++) {
      Signed r = receipts.get(i);
      columns[0][i] = r.workspaceId();
      columns[1][i] = r.receiptId();
      // A text without a trailing signature member goes in as NULL, which the statement skips.
      String text = Objects.requireNonNull(r.signedJson());
      if (SignedReceiptText.signatureObjectOf(text) != null) {
        ReceiptContexts.Cut cut = ReceiptContexts.cut(text);
        columns[2][i] = text;
        columns[3][i] = cut.text();
        columns[4][i] = cut.sha256();
        columns[5][i] = cut.at();
      }
    }
    java.util.Set<List<String>> updated = new java.util.HashSet<>();
    try {
      PreparedStatement ps = statements.prepare(MARK_SIGNED_ALL_POSTGRES);
      // Planned with its arguments at every run, never from a plan the connection cached: a
      // generic plan made while the table was small joins by scanning the whole table, and would
      // keep doing so as the table grows until the next ANALYZE. The planning costs a fraction of
      // the statement, which signs up to a batch of receipts.
      ps.unwrap(PGStatement.class).setPrepareThreshold(0);
      bindArrays(ps, MARK_SIGNED_ARRAY_TYPES, columns);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          updated.add(List.of(rs.getString(1), rs.getString(2)));
        }
      }
    } catch (SQLException e) {
      throw failure(MARK_SIGNED_ALL_POSTGRES, e);
    }
    boolean[] stored = new boolean[receipts.size()];
    for (int i = 0; i < stored.length; i++) {
      Signed r = receipts.get(i);
      // A receipt listed twice is stored once: only its first entry counts.
      stored[i] = updated.remove(List.of(r.workspaceId(), r.receiptId()));
    }
    return stored;
  }

  /**
   * How PostgreSQL's signature statements test that a receipt is still unsigned: {@code
   * (signed_json IS NULL) IS TRUE} means the same as {@code signed_json IS NULL}, but the planner
   * cannot prove from it the predicate of the partial index {@code receipts_pending}, so it looks
   * each receipt up by its primary key. Written plainly, a plan cached while the table was new and
   * small (the JDBC driver prepares statements on the server and PostgreSQL keeps a generic plan
   * per connection) could scan {@code receipts_pending} instead, and that index keeps an entry for
   * every receipt signed since the last vacuum: measured at 9,000 checks/s, such a scan took 1 to
   * 12 ms per batch, where the primary-key lookups take a fraction of a millisecond.
   */
  static final String STILL_UNSIGNED_POSTGRES = "(r.signed_json IS NULL) IS TRUE";

  /**
   * How a signed text goes on after its payload's members: the separator and the object's brace.
   */
  static final String SIGNED_PREFIX_END = "'" + SignedReceiptText.MEMBER_SEPARATOR + "{'";

  /**
   * Which stored receipt a signed text is compared with: one stored whole by its payload, one
   * stored with its context cut out (see {@link ReceiptContexts}) by the text cut the same way and
   * the context's hash. Parameters (or {@code v} columns): the whole text, the cut text, its
   * context's hash and position.
   */
  private static String signedTextMatches(String whole, String cut, String sha, String at) {
    return "((r.context_sha256 IS NULL AND starts_with("
        + whole
        + ", left(r.payload_json, -1) || "
        + SIGNED_PREFIX_END
        + ")) OR (r.context_sha256 = "
        + sha
        + " AND r.context_at = "
        + at
        + " AND starts_with("
        + cut
        + ", left(r.payload_json, -1) || "
        + SIGNED_PREFIX_END
        + ")))";
  }

  /**
   * PostgreSQL stores the text if it starts with the stored payload and a signature member: whole,
   * or cut as the payload was.
   */
  static final String MARK_SIGNED_POSTGRES =
      "UPDATE receipts r SET signed_json ="
          + " CASE WHEN r.context_sha256 IS NULL THEN ?::text ELSE ?::text END"
          + " WHERE r.workspace_id = ? AND r.receipt_id = ? AND "
          + STILL_UNSIGNED_POSTGRES
          + " AND "
          + signedTextMatches("?::text", "?::text", "?::text", "?::integer");

  /** Column types of {@link #MARK_SIGNED_ALL_POSTGRES}. */
  static final String[] MARK_SIGNED_ARRAY_TYPES = {
    "text", "text", "text", "text", "text", "integer"
  };

  /**
   * PostgreSQL stores a whole batch of signatures with one statement: far cheaper there than a
   * statement per receipt.
   */
  static final String MARK_SIGNED_ALL_POSTGRES =
      "UPDATE receipts r SET signed_json ="
          + " CASE WHEN r.context_sha256 IS NULL THEN v.signed ELSE v.cut END"
          + " FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::integer[])"
          + " AS v(ws, id, signed, cut, sha, at)"
          + " WHERE r.workspace_id = v.ws AND r.receipt_id = v.id AND "
          + STILL_UNSIGNED_POSTGRES
          + " AND "
          + signedTextMatches("v.signed", "v.cut", "v.sha", "v.at")
          + " RETURNING r.workspace_id, r.receipt_id";
}
