package dev.agentauth.server.store.jdbc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.domain.EscalationRow;
import dev.agentauth.server.domain.GrantRow;
import dev.agentauth.server.domain.NonceRow;
import dev.agentauth.server.domain.ScopeRule;
import dev.agentauth.server.store.ApiKeyRow;
import dev.agentauth.server.store.AuthorizationFilter;
import dev.agentauth.server.store.BundleRow;
import dev.agentauth.server.store.EscalationFilter;
import dev.agentauth.server.store.IdempotencyRow;
import dev.agentauth.server.store.LogTx;
import dev.agentauth.server.store.Page;
import dev.agentauth.server.store.PageRequest;
import dev.agentauth.server.store.ReceiptFilter;
import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.server.store.SigningKeyRow;
import dev.agentauth.server.store.Store;
import dev.agentauth.server.store.StoreException;
import dev.agentauth.server.store.TombstoneRow;
import dev.agentauth.server.store.Tx;
import dev.agentauth.server.store.UsageTx.ReceiptUsage;
import dev.agentauth.server.store.WebhookDeliveryRow;
import dev.agentauth.server.store.WebhookEvent;
import dev.agentauth.server.store.WebhookRow;
import dev.agentauth.server.store.WebhookTx.Attempt;
import dev.agentauth.server.store.WebhookTx.Claimed;
import dev.agentauth.server.store.WebhookTx.Outbox;
import dev.agentauth.server.store.WorkspaceRow;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The {@link Tx} of a JDBC store: each method is one SQL statement on the transaction's connection.
 * Signing-key seeds are sealed with the master key on the way in and opened on the way out.
 */
abstract class JdbcTx implements Tx {

  /** Gives prepared statements for the transaction's connection. */
  interface Statements {
    PreparedStatement prepare(String sql) throws SQLException;
  }

  /** Maps one result row, reading columns by position (in the order the SELECT lists them). */
  @FunctionalInterface
  interface RowMapper<T> {
    T map(ResultSet rs) throws SQLException;
  }

  private static final TypeReference<List<ScopeRule>> SCOPES = new TypeReference<>() {};
  private static final TypeReference<List<String>> STRINGS = new TypeReference<>() {};
  private static final TypeReference<LinkedHashMap<String, String>> TARGETS =
      new TypeReference<>() {};

  private static final String AUTHORIZATION_COLUMNS =
      "workspace_id, authorization_id, user_id, agent_id, bundle_id, scopes, requires_confirm_for,"
          + " requires_escalation_for, escalation_targets, expires_at, budget_limit_micros,"
          + " budget_spent_micros, created_at, revoked_at, metadata";
  private static final int AUTHORIZATION_COLUMN_COUNT = AUTHORIZATION_COLUMNS.split(",").length;
  private static final String NONCE_COLUMNS =
      "workspace_id, nonce, authorization_id, scope, resource, created_at, expires_at, consumed_at,"
          + " approved";
  private static final String GRANT_COLUMNS =
      "workspace_id, grant_id, authorization_id, scope, resource, nonce, created_at, expires_at,"
          + " approved_by_key_id, approved_by_role, approved_via";
  private static final String ESCALATION_COLUMNS =
      "workspace_id, escalation_id, authorization_id, scope, resource, status, escalation_to,"
          + " created_at, expires_at, resolved_by, resolved_at, note, approval_expires_at,"
          + " approval_consumed_at";

  /**
   * An escalation's lifetime end as read: an escalation still pending when its authorization was
   * revoked ends at the revocation. Revocation writes no escalation row, so its cost does not grow
   * with the authorization's escalations.
   */
  static final String ESCALATION_EXPIRES =
      "CASE WHEN e.status = 'pending' AND a.revoked_at IS NOT NULL AND a.revoked_at < e.expires_at"
          + " THEN a.revoked_at ELSE e.expires_at END";

  /** {@link #ESCALATION_COLUMNS} read from {@code escalations e} joined to its authorization. */
  private static final String ESCALATION_SELECT =
      "SELECT e.workspace_id, e.escalation_id, e.authorization_id, e.scope, e.resource, e.status,"
          + " e.escalation_to, e.created_at, "
          + ESCALATION_EXPIRES
          + ", e.resolved_by, e.resolved_at, e.note, e.approval_expires_at,"
          + " e.approval_consumed_at FROM escalations e LEFT JOIN authorizations a"
          + " ON a.workspace_id = e.workspace_id AND a.authorization_id = e.authorization_id";

  private static final String BUNDLE_COLUMNS =
      "workspace_id, bundle_id, agent_id, scopes, requires_confirm_for, requires_escalation_for,"
          + " escalation_targets, default_expiry_days, description, created_at, updated_at,"
          + " deleted_at";

  /** The columns a receipt is inserted with (see {@link ReceiptContexts} for the last two). */
  static final String RECEIPT_COLUMNS =
      "workspace_id, receipt_id, authorization_id, user_id, resource, session_id, scope, event,"
          + " decision, issued_at, payload_json, signed_json, context_at, context_sha256";

  /**
   * What a receipt is read with ({@link #receiptRow}): its columns and its shared context, looked
   * up by the primary key of {@code receipt_contexts} (null for a receipt stored whole).
   */
  static final String RECEIPT_SELECT =
      "workspace_id, receipt_id, authorization_id, user_id, resource, session_id, scope, event,"
          + " decision, issued_at, payload_json, signed_json, context_at,"
          + " (SELECT c.context_json FROM receipt_contexts c"
          + " WHERE c.workspace_id = receipts.workspace_id AND c.sha256 = receipts.context_sha256)";

  final Statements statements;
  private final Dialect dialect;
  private final MasterKey masterKey;
  private final ObjectMapper json;

  /** Shared decoded JSON columns ({@link DecodedJsonCache}, bounded by weight). */
  private final Map<String, Object> decoded;

  /** The SQLite writer's cache of check targets; null on every other connection. */
  private final CheckTargetCache checkTargets;

  JdbcTx(
      Statements statements,
      Dialect dialect,
      MasterKey masterKey,
      ObjectMapper json,
      Map<String, Object> decoded,
      CheckTargetCache checkTargets) {
    this.statements = statements;
    this.dialect = dialect;
    this.masterKey = masterKey;
    this.json = json;
    this.decoded = decoded;
    this.checkTargets = checkTargets;
  }

  // ---- the receipt log (JdbcLog)

  private JdbcLog log() {
    return new JdbcLog(this, dialect);
  }

  @Override
  public long logSize(String workspaceId) {
    return log().size(workspaceId);
  }

  @Override
  public List<ReceiptRow> unloggedReceipts(String workspaceId, int limit) {
    return log().unlogged(workspaceId, limit);
  }

  @Override
  public List<String> unloggedWorkspaces(String afterWorkspaceId, int limit) {
    return log().unloggedWorkspaces(afterWorkspaceId, limit);
  }

  @Override
  public boolean appendLog(
      String workspaceId, long fromSize, List<String> receiptIds, List<LogTx.Node> nodes) {
    return log().append(workspaceId, fromSize, receiptIds, nodes);
  }

  @Override
  public List<String> uncheckpointedWorkspaces(int limit) {
    return log().uncheckpointed(limit);
  }

  @Override
  public Map<LogTx.NodeId, byte[]> logNodes(
      String workspaceId, java.util.Collection<LogTx.NodeId> ids) {
    return log().nodes(workspaceId, ids);
  }

  @Override
  public java.util.OptionalLong logIndex(String workspaceId, String receiptId) {
    return log().index(workspaceId, receiptId);
  }

  @Override
  public List<LogTx.Entry> logEntries(String workspaceId, long start, int limit) {
    return log().entries(workspaceId, start, limit);
  }

  @Override
  public boolean insertCheckpoint(LogTx.Checkpoint checkpoint) {
    return log().insertCheckpoint(checkpoint);
  }

  @Override
  public Optional<LogTx.Checkpoint> latestCheckpoint(String workspaceId) {
    return log().latestCheckpoint(workspaceId);
  }

  @Override
  public Optional<LogTx.Checkpoint> checkpoint(String workspaceId, long treeSize) {
    return log().checkpoint(workspaceId, treeSize);
  }

  @Override
  public boolean insertCosignature(LogTx.Cosignature cosignature) {
    return log().insertCosignature(cosignature);
  }

  @Override
  public List<LogTx.Cosignature> cosignatures(String workspaceId, long treeSize) {
    return log().cosignatures(workspaceId, treeSize);
  }

  @Override
  public java.util.OptionalLong newestCosignedSize(
      String workspaceId, java.util.Collection<String> witnesses, int atLeast) {
    return log().newestCosignedSize(workspaceId, witnesses, atLeast);
  }

  @Override
  public List<String> logWitnesses(String workspaceId) {
    return log().witnesses(workspaceId);
  }

  @Override
  public void setLogWitnesses(String workspaceId, List<String> vkeys) {
    log().setWitnesses(workspaceId, vkeys);
  }

  // ---- webhooks (JdbcWebhooks)

  private JdbcWebhooks webhookStatements() {
    return new JdbcWebhooks(this, dialect, masterKey);
  }

  @Override
  public void insertWebhook(WebhookRow row) {
    webhookStatements().insertWebhook(row);
  }

  @Override
  public List<WebhookRow> webhooks(String workspaceId) {
    return webhookStatements().webhooks(workspaceId);
  }

  @Override
  public Optional<WebhookRow> webhook(String workspaceId, String webhookId) {
    return webhookStatements().webhook(workspaceId, webhookId);
  }

  @Override
  public boolean deleteWebhook(String workspaceId, String webhookId) {
    return webhookStatements().deleteWebhook(workspaceId, webhookId);
  }

  @Override
  public Page<WebhookDeliveryRow> listWebhookDeliveries(
      String workspaceId, String webhookId, PageRequest page) {
    return webhookStatements().listWebhookDeliveries(workspaceId, webhookId, page);
  }

  @Override
  public void enqueueWebhookEvent(WebhookEvent event) {
    webhookStatements().enqueue(event);
  }

  @Override
  public void rescheduleWebhookEvents(
      String workspaceId, String authorizationId, String type, Instant at) {
    webhookStatements().reschedule(workspaceId, authorizationId, type, at);
  }

  @Override
  public List<Claimed> claimWebhookDeliveries(
      Instant dueBy,
      Instant leaseNow,
      Instant leaseUntil,
      String owner,
      Set<String> skipWebhooks,
      int limit) {
    return webhookStatements().claim(dueBy, leaseNow, leaseUntil, owner, skipWebhooks, limit);
  }

  @Override
  public boolean recordWebhookAttempt(Attempt a) {
    return webhookStatements().record(a);
  }

  @Override
  public int releaseWebhookLeases() {
    return webhookStatements().releaseLeases();
  }

  @Override
  public int pruneWebhookDeliveries(Instant eventBefore, int limit) {
    return webhookStatements().prune(eventBefore, limit);
  }

  @Override
  public Outbox webhookOutbox(Instant now, long atMost) {
    return webhookStatements().outbox(now, atMost);
  }

  // ---- what each database does its own way (SqliteTx, PostgresTx)

  /**
   * Takes a transaction-scoped lock on {@code name} with the advisory-lock {@code function} ({@code
   * pg_advisory_xact_lock} or its shared form); a database whose write transactions run one at a
   * time does nothing.
   */
  abstract void advisoryLock(String function, String name);

  /** The table of a group's keys (columns ws, id, resource) that the group's lookup joins, as k. */
  abstract String groupKeysSource();

  /** What follows the group's lookup: its order and row locks, where the database takes them. */
  abstract String groupTargetsSuffix();

  /** Binds a group's keys to the parameters of {@link #groupKeysSource}. */
  abstract void bindGroupKeys(PreparedStatement ps, List<Store.GroupKey> keys) throws SQLException;

  /** {@code column} in a filter that must not choose the index the page's key range uses. */
  abstract String unindexed(String column);

  /**
   * {@link #insertReceipt} for several receipts, in one statement or batch (parameters: {@link
   * #receiptParams}), after their shared contexts ({@link #cutAndStoreContexts}).
   */
  abstract void insertReceipts(List<ReceiptRow> rows);

  /** What the signature column of a receipt row holds: the signed text or the signature alone. */
  abstract Object storedSignature(ReceiptRow row, ReceiptContexts.Cut cut);

  // ---- plumbing

  /** The statements of this transaction's connection (for tests that run SQL of their own). */
  Statements statements() {
    return statements;
  }

  PreparedStatement bind(String sql, Object... params) throws SQLException {
    PreparedStatement ps = statements.prepare(sql);
    for (int i = 0; i < params.length; i++) {
      set(ps, i + 1, params[i]);
    }
    return ps;
  }

  static void set(PreparedStatement ps, int i, Object v) throws SQLException {
    if (v == null) {
      ps.setNull(i, Types.VARCHAR);
    } else if (v instanceof Null n) {
      ps.setNull(i, n.sqlType());
    } else if (v instanceof String s) {
      ps.setString(i, s);
    } else if (v instanceof Long l) {
      ps.setLong(i, l);
    } else if (v instanceof Integer n) {
      ps.setInt(i, n);
    } else if (v instanceof Boolean b) {
      ps.setBoolean(i, b);
    } else if (v instanceof Instant t) {
      ps.setLong(i, t.toEpochMilli());
    } else if (v instanceof byte[] b) {
      ps.setBytes(i, b);
    } else {
      throw new IllegalArgumentException("unsupported parameter type " + v.getClass());
    }
  }

  /** A typed SQL NULL, for columns whose type the driver must know. */
  record Null(int sqlType) {}

  static final Null NULL_INTEGER = new Null(Types.INTEGER);

  private static final Null NULL_BIGINT = new Null(Types.BIGINT);
  private static final Null NULL_BOOLEAN = new Null(Types.BOOLEAN);

  private static Object millis(Instant t) {
    return t == null ? NULL_BIGINT : t;
  }

  private static Object nullableLong(Long v) {
    return v == null ? NULL_BIGINT : v;
  }

  int update(String sql, Object... params) {
    try {
      return bind(sql, params).executeUpdate();
    } catch (SQLException e) {
      throw failure(sql, e);
    }
  }

  <T> List<T> query(String sql, RowMapper<T> mapper, Object... params) {
    try (ResultSet rs = bind(sql, params).executeQuery()) {
      List<T> out = new ArrayList<>();
      while (rs.next()) {
        out.add(mapper.map(rs));
      }
      return out;
    } catch (SQLException e) {
      throw failure(sql, e);
    }
  }

  <T> Optional<T> one(String sql, RowMapper<T> mapper, Object... params) {
    List<T> rows = query(sql, mapper, params);
    return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
  }

  /** Binds {@code columns[c]} as a PostgreSQL array of {@code types[c]} to parameter c + 1. */
  static void bindArrays(PreparedStatement ps, String[] types, Object[][] columns)
      throws SQLException {
    for (int c = 0; c < columns.length; c++) {
      ps.setArray(c + 1, ps.getConnection().createArrayOf(types[c], columns[c]));
    }
  }

  static final String[] THREE_TEXTS = {"text", "text", "text"};

  static StoreException failure(String sql, SQLException e) {
    String first = sql.length() > 80 ? sql.substring(0, 80) + "..." : sql;
    return new StoreException(
        "SQL failed (" + e.getSQLState() + "): " + e.getMessage() + " in: " + first, e);
  }

  private static Instant instant(ResultSet rs, int column) throws SQLException {
    long v = rs.getLong(column);
    return rs.wasNull() ? null : Instant.ofEpochMilli(v);
  }

  private static Long longOrNull(ResultSet rs, int column) throws SQLException {
    long v = rs.getLong(column);
    return rs.wasNull() ? null : v;
  }

  String toJson(Object value) {
    try {
      return json.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new StoreException("cannot encode a stored value as JSON", e);
    }
  }

  /**
   * Decodes a JSON list or map column. Decoded values are shared through {@code decoded} (the rows
   * copy them into immutable collections), since the same scopes recur on every check.
   */
  private <T> T fromJson(String text, TypeReference<T> type) {
    String key = type.getType().getTypeName() + '\u0000' + text;
    @SuppressWarnings("unchecked")
    T cached = (T) decoded.get(key);
    if (cached != null) {
      return cached;
    }
    try {
      T value = json.readValue(text, type);
      decoded.put(key, value);
      return value;
    } catch (JsonProcessingException e) {
      throw new StoreException("a stored JSON column is corrupt", e);
    }
  }

  private ObjectNode objectOrNull(String text) {
    if (text == null) {
      return null;
    }
    try {
      return (ObjectNode) json.readTree(text);
    } catch (JsonProcessingException | ClassCastException e) {
      throw new StoreException("a stored metadata column is corrupt", e);
    }
  }

  /** The key under which a nullable resource is looked up (null and "" must differ). */
  private static String resourceKey(String resource) {
    return resource == null ? "-" : "=" + resource;
  }

  private static <T> Page<T> page(List<T> rows, int limit) {
    return rows.size() > limit ? new Page<>(rows.subList(0, limit), true) : new Page<>(rows, false);
  }

  // ---- workspaces and credentials

  @Override
  public Optional<WorkspaceRow> workspace(String workspaceId) {
    return one(
        "SELECT workspace_id, plan, created_at FROM workspaces WHERE workspace_id = ?",
        rs -> new WorkspaceRow(rs.getString(1), rs.getString(2), instant(rs, 3)),
        workspaceId);
  }

  @Override
  public boolean insertWorkspace(WorkspaceRow row) {
    return update(
            "INSERT INTO workspaces (workspace_id, plan, created_at) VALUES (?, ?, ?)"
                + " ON CONFLICT (workspace_id) DO NOTHING",
            row.workspaceId(),
            row.plan(),
            row.createdAt())
        == 1;
  }

  @Override
  public void lock(String name) {
    advisoryLock("pg_advisory_xact_lock", name);
  }

  @Override
  public void lockShared(String name) {
    advisoryLock("pg_advisory_xact_lock_shared", name);
  }

  private static final String API_KEY_COLUMNS =
      "key_hash, key_id, workspace_id, role, name, approver_id, prefix, created_at, expires_at,"
          + " last_used_at, revoked_at, targets";

  private ApiKeyRow apiKeyRow(ResultSet rs) throws SQLException {
    String targets = rs.getString(12);
    return new ApiKeyRow(
        rs.getString(1),
        rs.getString(2),
        rs.getString(3),
        rs.getString(4),
        rs.getString(5),
        rs.getString(6),
        rs.getString(7),
        instant(rs, 8),
        instant(rs, 9),
        instant(rs, 10),
        instant(rs, 11),
        targets == null ? null : fromJson(targets, STRINGS));
  }

  @Override
  public Optional<ApiKeyRow> apiKey(String keyHash) {
    return one(
        "SELECT " + API_KEY_COLUMNS + " FROM api_keys WHERE key_hash = ?",
        this::apiKeyRow,
        keyHash);
  }

  @Override
  public Optional<ApiKeyRow> apiKeyById(String workspaceId, String keyId) {
    return one(
        "SELECT " + API_KEY_COLUMNS + " FROM api_keys WHERE workspace_id = ? AND key_id = ?",
        this::apiKeyRow,
        workspaceId,
        keyId);
  }

  @Override
  public void insertApiKey(ApiKeyRow row) {
    update(
        "INSERT INTO api_keys ("
            + API_KEY_COLUMNS
            + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        row.keyHash(),
        row.keyId(),
        row.workspaceId(),
        row.role(),
        row.name(),
        row.approverId(),
        row.prefix(),
        row.createdAt(),
        millis(row.expiresAt()),
        millis(row.lastUsedAt()),
        millis(row.revokedAt()),
        row.targets() == null ? null : toJson(row.targets()));
  }

  @Override
  public Page<ApiKeyRow> listApiKeys(String workspaceId, PageRequest page) {
    StringBuilder sql =
        new StringBuilder("SELECT " + API_KEY_COLUMNS + " FROM api_keys WHERE workspace_id = ?");
    List<Object> params = new ArrayList<>(List.of(workspaceId));
    afterAndLimit(sql, params, "key_id", page.after(), page.limit());
    return page(query(sql.toString(), this::apiKeyRow, params.toArray()), page.limit());
  }

  @Override
  public int countLiveApiKeys(String workspaceId, Instant now) {
    // Two range reads of the partial index of unrevoked keys, skipping the expired ones.
    return one(
            "SELECT (SELECT COUNT(*) FROM api_keys WHERE workspace_id = ? AND revoked_at IS NULL"
                + " AND expires_at IS NULL) + (SELECT COUNT(*) FROM api_keys WHERE workspace_id"
                + " = ? AND revoked_at IS NULL AND expires_at > ?)",
            rs -> rs.getInt(1),
            workspaceId,
            workspaceId,
            now)
        .orElse(0);
  }

  /** Serializes revocations so that the log's entries commit in the order of their numbers. */
  private static final String REVOCATION_LOCK = "api-key-revocations";

  @Override
  public boolean revokeApiKey(String workspaceId, String keyId, Instant at) {
    lock(REVOCATION_LOCK);
    boolean revoked =
        update(
                "UPDATE api_keys SET revoked_at = ? WHERE workspace_id = ? AND key_id = ?"
                    + " AND revoked_at IS NULL",
                at,
                workspaceId,
                keyId)
            == 1;
    if (revoked) {
      update(
          "INSERT INTO api_key_revocations (key_hash) SELECT key_hash FROM api_keys"
              + " WHERE workspace_id = ? AND key_id = ?",
          workspaceId,
          keyId);
    }
    return revoked;
  }

  @Override
  public List<ApiKeyRow.Revocation> apiKeyRevocationsAfter(long seq, int limit) {
    return query(
        "SELECT seq, key_hash FROM api_key_revocations WHERE seq > ? ORDER BY seq LIMIT ?",
        rs -> new ApiKeyRow.Revocation(rs.getLong(1), rs.getString(2)),
        seq,
        limit);
  }

  @Override
  public long lastApiKeyRevocation() {
    return one("SELECT COALESCE(MAX(seq), 0) FROM api_key_revocations", rs -> rs.getLong(1))
        .orElse(0L);
  }

  @Override
  public void recordApiKeyUses(List<ApiKeyRow.Use> uses, Duration minInterval) {
    for (ApiKeyRow.Use use : uses) {
      update(
          "UPDATE api_keys SET last_used_at = ?, prefix = COALESCE(prefix, ?) WHERE key_hash = ?"
              + " AND (last_used_at IS NULL OR last_used_at <= ?)",
          use.at(),
          use.prefix(),
          use.keyHash(),
          use.at().minus(minInterval));
    }
  }

  private static String seedAad(String workspaceId, String keyId) {
    return "signing-key:" + workspaceId + ":" + keyId;
  }

  @Override
  public List<SigningKeyRow> signingKeys(String workspaceId) {
    return query(
        "SELECT workspace_id, key_id, private_seed_sealed, public_key, active_from, active_until"
            + " FROM signing_keys WHERE workspace_id = ? ORDER BY active_from, key_id",
        rs -> {
          String ws = rs.getString(1);
          String keyId = rs.getString(2);
          return new SigningKeyRow(
              ws,
              keyId,
              openSeed(rs.getBytes(3), seedAad(ws, keyId)),
              rs.getBytes(4),
              instant(rs, 5),
              instant(rs, 6));
        },
        workspaceId);
  }

  /**
   * Decrypts a sealed seed, reusing the result for the same sealed bytes: the signer re-reads the
   * keys for every batch, and each sealed value is unique (random nonce), so equal bytes mean the
   * same authenticated value.
   */
  private byte[] openSeed(byte[] sealed, String aad) {
    String cacheKey = "seed\u0000" + aad + '\u0000' + java.util.HexFormat.of().formatHex(sealed);
    byte[] seed = (byte[]) decoded.get(cacheKey);
    if (seed == null) {
      seed = masterKey.open(sealed, aad);
      decoded.put(cacheKey, seed);
    }
    return seed.clone();
  }

  @Override
  public void insertSigningKey(SigningKeyRow row) {
    update(
        "INSERT INTO signing_keys (workspace_id, key_id, private_seed_sealed, public_key,"
            + " active_from, active_until) VALUES (?, ?, ?, ?, ?, ?)",
        row.workspaceId(),
        row.keyId(),
        masterKey.seal(row.privateSeed(), seedAad(row.workspaceId(), row.keyId())),
        row.publicKey(),
        row.activeFrom(),
        millis(row.activeUntil()));
  }

  @Override
  public void updateSigningKey(SigningKeyRow row) {
    update(
        "UPDATE signing_keys SET active_from = ?, active_until = ?"
            + " WHERE workspace_id = ? AND key_id = ?",
        row.activeFrom(),
        millis(row.activeUntil()),
        row.workspaceId(),
        row.keyId());
  }

  // ---- authorizations

  private AuthorizationRow authorizationRow(ResultSet rs) throws SQLException {
    return new AuthorizationRow(
        rs.getString(1),
        rs.getString(2),
        rs.getString(3),
        rs.getString(4),
        rs.getString(5),
        fromJson(rs.getString(6), SCOPES),
        fromJson(rs.getString(7), STRINGS),
        fromJson(rs.getString(8), STRINGS),
        fromJson(rs.getString(9), TARGETS),
        instant(rs, 10),
        longOrNull(rs, 11),
        rs.getLong(12),
        instant(rs, 13),
        instant(rs, 14),
        objectOrNull(rs.getString(15)));
  }

  @Override
  public Optional<AuthorizationRow> authorization(String workspaceId, String authorizationId) {
    return one(
        "SELECT "
            + AUTHORIZATION_COLUMNS
            + " FROM authorizations WHERE workspace_id = ? AND authorization_id = ?",
        this::authorizationRow,
        workspaceId,
        authorizationId);
  }

  @Override
  public Optional<AuthorizationRow> authorizationForUpdate(
      String workspaceId, String authorizationId) {
    return one(
        "SELECT "
            + AUTHORIZATION_COLUMNS
            + " FROM authorizations WHERE workspace_id = ? AND authorization_id = ?"
            + dialect.forUpdate,
        this::authorizationRow,
        workspaceId,
        authorizationId);
  }

  @Override
  public CheckTarget authorizationForCheck(
      String workspaceId, String authorizationId, String resource) {
    CheckTarget cached = cachedTarget(workspaceId, authorizationId, resource);
    if (cached != null) {
      return cached;
    }
    record Read(AuthorizationRow row, boolean tombstoned, long patterns) {}
    Optional<Read> read =
        one(
            "SELECT "
                + AUTHORIZATION_COLUMNS
                + ", EXISTS (SELECT 1 FROM tombstones t WHERE t.workspace_id = a.workspace_id"
                + " AND t.resource = ?)"
                + PATTERN_COUNT
                + " FROM authorizations a"
                + " WHERE a.workspace_id = ? AND a.authorization_id = ?"
                + dialect.forUpdate,
            rs ->
                new Read(
                    authorizationRow(rs),
                    resource != null && rs.getBoolean(AUTHORIZATION_COLUMN_COUNT + 1),
                    rs.getLong(AUTHORIZATION_COLUMN_COUNT + 2)),
            resource,
            workspaceId,
            authorizationId);
    CheckTarget target =
        read.isEmpty()
            ? new CheckTarget(Optional.empty(), false)
            : new CheckTarget(
                Optional.of(read.get().row()),
                read.get().tombstoned(),
                patternsOf(workspaceId, read.get().patterns()));
    if (checkTargets != null) {
      checkTargets.put(resource, target);
    }
    return target;
  }

  /**
   * How many pattern tombstones the workspace of the selected authorization {@code a} has: the
   * check statements read it, so that a workspace without any (the common case) costs no further
   * statement.
   */
  private static final String PATTERN_COUNT =
      ", (SELECT COUNT(*) FROM tombstone_patterns p WHERE p.workspace_id = a.workspace_id)";

  /**
   * The workspace's tombstone patterns, of which the check's statement counted {@code count}: none
   * without a read when there are none; the SQLite writer's cached list when it has as many (they
   * are only ever added, so a list of the same size is the same list); otherwise read in this
   * transaction, so a check sees every pattern committed before it.
   */
  private List<String> patternsOf(String workspaceId, long count) {
    if (count == 0) {
      return List.of();
    }
    List<String> cached = checkTargets == null ? null : checkTargets.patterns(workspaceId);
    if (cached != null && cached.size() == count) {
      return cached;
    }
    List<String> read = tombstonePatterns(workspaceId);
    if (checkTargets != null) {
      checkTargets.putPatterns(workspaceId, read);
    }
    return read;
  }

  /** The SQLite writer's cached target of a check; null when it must be read. */
  private CheckTarget cachedTarget(String workspaceId, String authorizationId, String resource) {
    return checkTargets == null ? null : checkTargets.get(workspaceId, authorizationId, resource);
  }

  /**
   * Locks the authorizations of a group of checks — in (workspace, id) order, so that groups
   * committing at the same time, here or in another instance, never deadlock — and tells for each
   * key whether its resource is tombstoned: one statement for the whole group. Keys whose
   * authorization does not exist map to an empty target. On the SQLite writer, which holds the
   * database's one write lock for the whole batch, targets it has cached are not read again.
   */
  Map<Store.GroupKey, CheckTarget> lockForGroup(List<Store.GroupKey> keys) {
    Map<Store.GroupKey, CheckTarget> out = new LinkedHashMap<>();
    List<Store.GroupKey> toRead = new ArrayList<>(keys.size());
    for (Store.GroupKey k : keys) {
      CheckTarget cached = cachedTarget(k.workspaceId(), k.authorizationId(), k.resource());
      out.put(k, cached != null ? cached : new CheckTarget(Optional.empty(), false));
      if (cached == null) {
        toRead.add(k);
      }
    }
    if (toRead.isEmpty()) {
      return out;
    }
    readForGroup(toRead, out);
    return out;
  }

  /** Reads (and on PostgreSQL locks) the targets of {@code keys} into {@code out}. */
  private void readForGroup(List<Store.GroupKey> keys, Map<Store.GroupKey, CheckTarget> out) {
    String select =
        "SELECT "
            + AUTHORIZATION_COLUMNS
            + ", EXISTS (SELECT 1 FROM tombstones t WHERE t.workspace_id = a.workspace_id"
            + " AND t.resource = k.resource), k.resource"
            + PATTERN_COUNT
            + " FROM authorizations a JOIN ";
    String on = " ON a.workspace_id = k.ws AND a.authorization_id = k.id";
    String sql = select + groupKeysSource() + on + groupTargetsSuffix();
    record Read(AuthorizationRow row, String resource, boolean tombstoned, long patterns) {}
    List<Read> reads = new ArrayList<>(keys.size());
    try {
      PreparedStatement ps = statements.prepare(sql);
      bindGroupKeys(ps, keys);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          AuthorizationRow row = authorizationRow(rs);
          String resource = rs.getString(AUTHORIZATION_COLUMN_COUNT + 2);
          boolean tombstoned = resource != null && rs.getBoolean(AUTHORIZATION_COLUMN_COUNT + 1);
          reads.add(
              new Read(row, resource, tombstoned, rs.getLong(AUTHORIZATION_COLUMN_COUNT + 3)));
        }
      }
    } catch (SQLException e) {
      throw failure(sql, e);
    }
    Map<String, List<String>> patterns = new HashMap<>();
    for (Read r : reads) {
      String ws = r.row().workspaceId();
      List<String> ofWorkspace = patterns.get(ws);
      if (ofWorkspace == null) {
        ofWorkspace = patternsOf(ws, r.patterns());
        patterns.put(ws, ofWorkspace);
      }
      CheckTarget target = new CheckTarget(Optional.of(r.row()), r.tombstoned(), ofWorkspace);
      out.put(new Store.GroupKey(ws, r.row().authorizationId(), r.resource()), target);
      if (checkTargets != null) {
        checkTargets.put(r.resource(), target);
      }
    }
  }

  @Override
  public void insertAuthorization(AuthorizationRow row) {
    authorizationWritten(row);
    update(
        "INSERT INTO authorizations ("
            + AUTHORIZATION_COLUMNS
            + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        row.workspaceId(),
        row.authorizationId(),
        row.userId(),
        row.agentId(),
        row.bundleId(),
        toJson(row.scopes()),
        toJson(row.requiresConfirmFor()),
        toJson(row.requiresEscalationFor()),
        toJson(row.escalationTargets()),
        row.expiresAt(),
        nullableLong(row.budgetLimitMicros()),
        row.budgetSpentMicros(),
        row.createdAt(),
        millis(row.revokedAt()),
        row.metadata() == null ? null : toJson(row.metadata()));
  }

  @Override
  public void updateAuthorization(AuthorizationRow row) {
    authorizationWritten(row);
    update(
        "UPDATE authorizations SET budget_spent_micros = ?, revoked_at = ?"
            + " WHERE workspace_id = ? AND authorization_id = ?",
        row.budgetSpentMicros(),
        millis(row.revokedAt()),
        row.workspaceId(),
        row.authorizationId());
  }

  @Override
  public Page<AuthorizationRow> listAuthorizations(AuthorizationFilter filter, PageRequest page) {
    String workspaceId = filter.workspaceId();
    String userId = filter.userId();
    String agentId = filter.agentId();
    Instant now = filter.now();
    String afterId = page.after();
    int limit = page.limit();
    // authorizations_by_user serves user_id in key order; agent_id and status are checked on the
    // rows of a bounded window.
    Where seek = new Where();
    Where rest = new Where();
    if (userId != null) {
      seek.and("user_id = ?", userId);
    }
    if (agentId != null) {
      rest.and(unindexed("agent_id") + " = ?", agentId);
    }
    if (filter.status() != null) {
      switch (filter.status()) {
        case REVOKED -> rest.and("revoked_at IS NOT NULL");
        case ACTIVE -> rest.and("revoked_at IS NULL AND expires_at > ?", now);
        case EXPIRED -> rest.and("revoked_at IS NULL AND expires_at <= ?", now);
      }
    }
    return listPage(
        "authorizations",
        AUTHORIZATION_COLUMNS,
        "authorization_id",
        workspaceId,
        seek,
        rest,
        afterId,
        limit,
        this::authorizationRow);
  }

  /**
   * The most rows one page of a filtered list examines. A list's filters are served by an index
   * together with {@code workspace_id} in key order ({@code seek}) or checked on the rows that
   * index yields ({@code rest}); with {@code rest} filters a page reads at most this many of those
   * rows, then stops with {@link Page#resumeAfter} set, however few of them matched.
   */
  static final int SCAN_WINDOW = 10_000;

  /** AND-ed conditions of a list query and their parameters. */
  private static final class Where {
    final StringBuilder sql = new StringBuilder();
    final List<Object> params = new ArrayList<>();

    void and(String condition, Object... values) {
      sql.append(" AND ").append(condition);
      params.addAll(java.util.Arrays.asList(values));
    }

    boolean isEmpty() {
      return sql.length() == 0;
    }
  }

  /**
   * One page of a keyset list of {@code table} in {@code key} order: rows of the workspace that
   * meet {@code seek} (served by an index in key order) and {@code rest}, after {@code after}. With
   * {@code rest} filters, the page first finds the key {@link #SCAN_WINDOW} rows on along the
   * {@code seek} index and reads no row beyond it.
   */
  private <T> Page<T> listPage(
      String table,
      String columns,
      String key,
      String workspaceId,
      Where seek,
      Where rest,
      String after,
      int limit,
      RowMapper<T> mapper) {
    return listPage(
        table,
        "SELECT " + columns + " FROM " + table,
        "",
        key,
        workspaceId,
        seek,
        rest,
        after,
        limit,
        mapper);
  }

  /**
   * {@link #listPage(String, String, String, String, Where, Where, String, int, RowMapper)} reading
   * its rows with {@code select} (which may join other tables), whose columns of {@code table} are
   * named with {@code qualifier} ({@code "e."}); the window is found on {@code table} alone.
   */
  private <T> Page<T> listPage(
      String table,
      String select,
      String qualifier,
      String key,
      String workspaceId,
      Where seek,
      Where rest,
      String after,
      int limit,
      RowMapper<T> mapper) {
    String bound = null;
    if (!rest.isEmpty()) {
      StringBuilder window =
          new StringBuilder("SELECT ")
              .append(key)
              .append(" FROM ")
              .append(table)
              .append(" WHERE workspace_id = ?")
              .append(seek.sql);
      List<Object> params = new ArrayList<>();
      params.add(workspaceId);
      params.addAll(seek.params);
      if (after != null) {
        window.append(" AND ").append(key).append(" > ?");
        params.add(after);
      }
      window.append(" ORDER BY ").append(key).append(" LIMIT 1 OFFSET ?");
      params.add(SCAN_WINDOW - 1);
      bound = one(window.toString(), rs -> rs.getString(1), params.toArray()).orElse(null);
    }
    String k = qualifier + key;
    StringBuilder sql =
        new StringBuilder(select)
            .append(" WHERE ")
            .append(qualifier)
            .append("workspace_id = ?")
            .append(seek.sql)
            .append(rest.sql);
    List<Object> params = new ArrayList<>();
    params.add(workspaceId);
    params.addAll(seek.params);
    params.addAll(rest.params);
    if (after != null) {
      sql.append(" AND ").append(k).append(" > ?");
      params.add(after);
    }
    if (bound != null) {
      sql.append(" AND ").append(k).append(" <= ?");
      params.add(bound);
    }
    sql.append(" ORDER BY ").append(k).append(" LIMIT ?");
    params.add(limit + 1);
    List<T> rows = query(sql.toString(), mapper, params.toArray());
    if (rows.size() > limit) {
      return new Page<>(rows.subList(0, limit), true);
    }
    return bound != null ? new Page<>(rows, true, bound) : new Page<>(rows, false);
  }

  private static void afterAndLimit(
      StringBuilder sql, List<Object> params, String key, String after, int limit) {
    if (after != null) {
      sql.append(" AND ").append(key).append(" > ?");
      params.add(after);
    }
    sql.append(" ORDER BY ").append(key).append(" LIMIT ?");
    params.add(limit + 1);
  }

  // ---- counters

  @Override
  public long allowCount(String workspaceId, String authorizationId, String scope, LocalDate day) {
    return one(
            "SELECT allows FROM allow_counters"
                + " WHERE workspace_id = ? AND authorization_id = ? AND scope = ? AND day = ?",
            rs -> rs.getLong(1),
            workspaceId,
            authorizationId,
            scope,
            day.toString())
        .orElse(0L);
  }

  private static final String ADD_ALLOW_COUNT =
      "INSERT INTO allow_counters (workspace_id, authorization_id, scope, day, allows)"
          + " VALUES (?, ?, ?, ?, ?) ON CONFLICT (workspace_id, authorization_id, scope, day)"
          + " DO UPDATE SET allows = allow_counters.allows + excluded.allows";

  @Override
  public void addAllowCount(
      String workspaceId, String authorizationId, String scope, LocalDate day, long delta) {
    update(ADD_ALLOW_COUNT, workspaceId, authorizationId, scope, day.toString(), delta);
  }

  /** One allow counter's key, for {@link #addAllowCounts}. */
  record CounterKey(String workspaceId, String authorizationId, String scope, LocalDate day) {}

  /** {@link #addAllowCount} for several counters, in one batch. */
  void addAllowCounts(Map<CounterKey, Long> deltas) {
    if (deltas.isEmpty()) {
      return;
    }
    try {
      PreparedStatement ps = statements.prepare(ADD_ALLOW_COUNT);
      for (Map.Entry<CounterKey, Long> e : deltas.entrySet()) {
        CounterKey k = e.getKey();
        ps.setString(1, k.workspaceId());
        ps.setString(2, k.authorizationId());
        ps.setString(3, k.scope());
        ps.setString(4, k.day().toString());
        ps.setLong(5, e.getValue());
        ps.addBatch();
      }
      ps.executeBatch();
    } catch (SQLException e) {
      throw failure(ADD_ALLOW_COUNT, e);
    }
  }

  // ---- confirmations

  private static NonceRow nonceRow(ResultSet rs) throws SQLException {
    boolean approved = rs.getBoolean(9);
    Boolean approvedOrNull = rs.wasNull() ? null : approved;
    return new NonceRow(
        rs.getString(1),
        rs.getString(2),
        rs.getString(3),
        rs.getString(4),
        rs.getString(5),
        instant(rs, 6),
        instant(rs, 7),
        instant(rs, 8),
        approvedOrNull);
  }

  @Override
  public Optional<NonceRow> nonce(String workspaceId, String nonce) {
    return one(
        "SELECT " + NONCE_COLUMNS + " FROM nonces WHERE workspace_id = ? AND nonce = ?",
        JdbcTx::nonceRow,
        workspaceId,
        nonce);
  }

  @Override
  public Optional<NonceRow> openNonce(
      String workspaceId, String authorizationId, String scope, String resource, Instant now) {
    return one(
            "SELECT "
                + NONCE_COLUMNS
                + " FROM nonces WHERE workspace_id = ? AND authorization_id = ? AND scope = ?"
                + " AND resource_key = ? ORDER BY "
                + dialect.insertOrder
                + " DESC LIMIT 1",
            JdbcTx::nonceRow,
            workspaceId,
            authorizationId,
            scope,
            resourceKey(resource))
        .filter(n -> n.isOpen(now));
  }

  @Override
  public void insertNonce(NonceRow row) {
    update(
        "INSERT INTO nonces ("
            + NONCE_COLUMNS
            + ", resource_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        row.workspaceId(),
        row.nonce(),
        row.authorizationId(),
        row.scope(),
        row.resource(),
        row.createdAt(),
        row.expiresAt(),
        millis(row.consumedAt()),
        row.approved() == null ? NULL_BOOLEAN : row.approved(),
        resourceKey(row.resource()));
  }

  @Override
  public void updateNonce(NonceRow row) {
    update(
        "UPDATE nonces SET consumed_at = ?, approved = ? WHERE workspace_id = ? AND nonce = ?",
        millis(row.consumedAt()),
        row.approved() == null ? NULL_BOOLEAN : row.approved(),
        row.workspaceId(),
        row.nonce());
  }

  private static GrantRow grantRow(ResultSet rs) throws SQLException {
    return new GrantRow(
        rs.getString(1),
        rs.getString(2),
        rs.getString(3),
        rs.getString(4),
        rs.getString(5),
        rs.getString(6),
        instant(rs, 7),
        instant(rs, 8),
        rs.getString(9) == null
            ? null
            : new GrantRow.ApprovedBy(rs.getString(9), rs.getString(10), rs.getString(11)));
  }

  @Override
  public Optional<GrantRow> activeGrant(
      String workspaceId, String authorizationId, String scope, String resource, Instant now) {
    return one(
        "SELECT "
            + GRANT_COLUMNS
            + " FROM grants WHERE workspace_id = ? AND authorization_id = ? AND scope = ?"
            + " AND resource_key = ? AND expires_at > ? ORDER BY expires_at DESC, "
            + dialect.insertOrder
            + " DESC LIMIT 1",
        JdbcTx::grantRow,
        workspaceId,
        authorizationId,
        scope,
        resourceKey(resource),
        now);
  }

  @Override
  public void insertGrant(GrantRow row) {
    update(
        "INSERT INTO grants ("
            + GRANT_COLUMNS
            + ", resource_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        row.workspaceId(),
        row.grantId(),
        row.authorizationId(),
        row.scope(),
        row.resource(),
        row.nonce(),
        row.createdAt(),
        row.expiresAt(),
        row.approvedBy() == null ? null : row.approvedBy().keyId(),
        row.approvedBy() == null ? null : row.approvedBy().role(),
        row.approvedBy() == null ? null : row.approvedBy().via(),
        resourceKey(row.resource()));
  }

  // ---- escalations

  private static EscalationRow escalationRow(ResultSet rs) throws SQLException {
    return new EscalationRow(
        rs.getString(1),
        rs.getString(2),
        rs.getString(3),
        rs.getString(4),
        rs.getString(5),
        EscalationRow.parseStatus(rs.getString(6)),
        rs.getString(7),
        instant(rs, 8),
        instant(rs, 9),
        rs.getString(10),
        instant(rs, 11),
        rs.getString(12),
        instant(rs, 13),
        instant(rs, 14));
  }

  @Override
  public Optional<EscalationRow> escalation(String workspaceId, String escalationId) {
    return one(
        ESCALATION_SELECT + " WHERE e.workspace_id = ? AND e.escalation_id = ?",
        JdbcTx::escalationRow,
        workspaceId,
        escalationId);
  }

  @Override
  public Optional<EscalationRow> latestEscalation(
      String workspaceId, String authorizationId, String scope, String resource) {
    return one(
        ESCALATION_SELECT
            + " WHERE e.workspace_id = ? AND e.authorization_id = ? AND e.scope = ?"
            + " AND e.resource_key = ? ORDER BY e."
            + dialect.insertOrder
            + " DESC LIMIT 1",
        JdbcTx::escalationRow,
        workspaceId,
        authorizationId,
        scope,
        resourceKey(resource));
  }

  @Override
  public void insertEscalation(EscalationRow row) {
    update(
        "INSERT INTO escalations ("
            + ESCALATION_COLUMNS
            + ", resource_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        row.workspaceId(),
        row.escalationId(),
        row.authorizationId(),
        row.scope(),
        row.resource(),
        row.status().wireName(),
        row.escalationTo(),
        row.createdAt(),
        row.expiresAt(),
        row.resolvedBy(),
        millis(row.resolvedAt()),
        row.note(),
        millis(row.approvalExpiresAt()),
        millis(row.approvalConsumedAt()),
        resourceKey(row.resource()));
  }

  @Override
  public void updateEscalation(EscalationRow row) {
    update(
        "UPDATE escalations SET status = ?, resolved_by = ?, resolved_at = ?, note = ?,"
            + " approval_expires_at = ?, approval_consumed_at = ?"
            + " WHERE workspace_id = ? AND escalation_id = ?",
        row.status().wireName(),
        row.resolvedBy(),
        millis(row.resolvedAt()),
        row.note(),
        millis(row.approvalExpiresAt()),
        millis(row.approvalConsumedAt()),
        row.workspaceId(),
        row.escalationId());
  }

  @Override
  public Page<EscalationRow> listEscalations(EscalationFilter filter, PageRequest page) {
    String workspaceId = filter.workspaceId();
    Instant now = filter.now();
    String afterId = page.after();
    int limit = page.limit();
    // The window is found on escalations alone; the status filter reads the lifetime as the
    // authorization's revocation may have ended it (see ESCALATION_EXPIRES).
    Where rest = new Where();
    if (filter.status() != null) {
      switch (filter.status()) {
        case PENDING -> rest.and("e.status = 'pending' AND " + ESCALATION_EXPIRES + " > ?", now);
        case EXPIRED ->
            rest.and(
                "(e.status = 'expired' OR (e.status = 'pending' AND "
                    + ESCALATION_EXPIRES
                    + " <= ?))",
                now);
        case APPROVED, REJECTED -> rest.and("e.status = ?", filter.status().wireName());
      }
    }
    return listPage(
        "escalations",
        ESCALATION_SELECT,
        "e.",
        "escalation_id",
        workspaceId,
        new Where(),
        rest,
        afterId,
        limit,
        JdbcTx::escalationRow);
  }

  // ---- bundles

  private BundleRow bundleRow(ResultSet rs) throws SQLException {
    return new BundleRow(
        rs.getString(1),
        rs.getString(2),
        rs.getString(3),
        fromJson(rs.getString(4), SCOPES),
        fromJson(rs.getString(5), STRINGS),
        fromJson(rs.getString(6), STRINGS),
        fromJson(rs.getString(7), TARGETS),
        longOrNull(rs, 8),
        rs.getString(9),
        instant(rs, 10),
        instant(rs, 11),
        instant(rs, 12));
  }

  @Override
  public Optional<BundleRow> bundle(String workspaceId, String bundleId) {
    return one(
        "SELECT " + BUNDLE_COLUMNS + " FROM bundles WHERE workspace_id = ? AND bundle_id = ?",
        this::bundleRow,
        workspaceId,
        bundleId);
  }

  @Override
  public void upsertBundle(BundleRow row) {
    update(
        "INSERT INTO bundles ("
            + BUNDLE_COLUMNS
            + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (workspace_id, bundle_id)"
            + " DO UPDATE SET agent_id = excluded.agent_id, scopes = excluded.scopes,"
            + " requires_confirm_for = excluded.requires_confirm_for,"
            + " requires_escalation_for = excluded.requires_escalation_for,"
            + " escalation_targets = excluded.escalation_targets,"
            + " default_expiry_days = excluded.default_expiry_days,"
            + " description = excluded.description, created_at = excluded.created_at,"
            + " updated_at = excluded.updated_at, deleted_at = excluded.deleted_at",
        row.workspaceId(),
        row.bundleId(),
        row.agentId(),
        toJson(row.scopes()),
        toJson(row.requiresConfirmFor()),
        toJson(row.requiresEscalationFor()),
        toJson(row.escalationTargets()),
        nullableLong(row.defaultExpiryDays()),
        row.description(),
        row.createdAt(),
        row.updatedAt(),
        millis(row.deletedAt()));
  }

  @Override
  public Page<BundleRow> listActiveBundles(String workspaceId, PageRequest page) {
    String afterId = page.after();
    int limit = page.limit();
    StringBuilder sql =
        new StringBuilder("SELECT ")
            .append(BUNDLE_COLUMNS)
            .append(" FROM bundles WHERE workspace_id = ? AND deleted_at IS NULL");
    List<Object> params = new ArrayList<>(List.of(workspaceId));
    afterAndLimit(sql, params, "bundle_id", afterId, limit);
    return page(query(sql.toString(), this::bundleRow, params.toArray()), limit);
  }

  /** Every statement that writes an authorization row calls this first. */
  private void authorizationWritten(AuthorizationRow row) {
    if (checkTargets != null) {
      checkTargets.authorizationWritten(row.workspaceId(), row.authorizationId());
    }
  }

  // ---- tombstones

  private static TombstoneRow tombstoneRow(ResultSet rs) throws SQLException {
    return new TombstoneRow(rs.getString(1), rs.getString(2), rs.getString(3), instant(rs, 4));
  }

  private static TombstoneRow tombstonePatternRow(ResultSet rs) throws SQLException {
    return TombstoneRow.pattern(rs.getString(1), rs.getString(2), rs.getString(3), instant(rs, 4));
  }

  @Override
  public Optional<TombstoneRow> tombstonePattern(String workspaceId, String resourcePattern) {
    return one(
        "SELECT workspace_id, pattern, reason, created_at FROM tombstone_patterns"
            + " WHERE workspace_id = ? AND pattern = ?",
        JdbcTx::tombstonePatternRow,
        workspaceId,
        resourcePattern);
  }

  @Override
  public void insertTombstonePattern(TombstoneRow row) {
    if (checkTargets != null) {
      checkTargets.tombstonePatternWritten(row.workspaceId());
    }
    update(
        "INSERT INTO tombstone_patterns (workspace_id, pattern, reason, created_at)"
            + " VALUES (?, ?, ?, ?)",
        row.workspaceId(),
        row.resourcePattern(),
        row.reason(),
        row.createdAt());
  }

  @Override
  public List<String> tombstonePatterns(String workspaceId) {
    return query(
        "SELECT pattern FROM tombstone_patterns WHERE workspace_id = ? ORDER BY pattern",
        rs -> rs.getString(1),
        workspaceId);
  }

  @Override
  public Page<TombstoneRow> listTombstonePatterns(String workspaceId, PageRequest page) {
    StringBuilder sql =
        new StringBuilder(
            "SELECT workspace_id, pattern, reason, created_at FROM tombstone_patterns"
                + " WHERE workspace_id = ?");
    List<Object> params = new ArrayList<>(List.of(workspaceId));
    afterAndLimit(sql, params, "pattern", page.after(), page.limit());
    return page(query(sql.toString(), JdbcTx::tombstonePatternRow, params.toArray()), page.limit());
  }

  @Override
  public Optional<TombstoneRow> tombstone(String workspaceId, String resource) {
    return one(
        "SELECT workspace_id, resource, reason, created_at FROM tombstones"
            + " WHERE workspace_id = ? AND resource = ?",
        JdbcTx::tombstoneRow,
        workspaceId,
        resource);
  }

  @Override
  public void insertTombstone(TombstoneRow row) {
    if (checkTargets != null) {
      checkTargets.tombstoneWritten(row.workspaceId(), row.resource());
    }
    update(
        "INSERT INTO tombstones (workspace_id, resource, reason, created_at) VALUES (?, ?, ?, ?)"
            + " ON CONFLICT (workspace_id, resource) DO UPDATE SET reason = excluded.reason,"
            + " created_at = excluded.created_at",
        row.workspaceId(),
        row.resource(),
        row.reason(),
        row.createdAt());
  }

  @Override
  public Page<TombstoneRow> listTombstones(String workspaceId, PageRequest page) {
    String afterResource = page.after();
    int limit = page.limit();
    StringBuilder sql =
        new StringBuilder(
            "SELECT workspace_id, resource, reason, created_at FROM tombstones"
                + " WHERE workspace_id = ?");
    List<Object> params = new ArrayList<>(List.of(workspaceId));
    afterAndLimit(sql, params, "resource", afterResource, limit);
    return page(query(sql.toString(), JdbcTx::tombstoneRow, params.toArray()), limit);
  }

  // ---- receipts

  static ReceiptRow receiptRow(ResultSet rs) throws SQLException {
    int cutAt = rs.getInt(13);
    Integer at = rs.wasNull() ? null : cutAt;
    String context = rs.getString(14);
    return new ReceiptRow(
        rs.getString(1),
        rs.getString(2),
        rs.getString(3),
        rs.getString(4),
        rs.getString(5),
        rs.getString(6),
        rs.getString(7),
        rs.getString(8),
        rs.getString(9),
        instant(rs, 10),
        ReceiptContexts.join(rs.getString(11), at, context),
        ReceiptContexts.join(rs.getString(12), at, context));
  }

  @Override
  public void insertReceipt(ReceiptRow row) {
    insertReceipts(List.of(row));
  }

  /**
   * Stores the shared contexts of {@code cuts} (one row per workspace and context, kept if it is
   * there already) before their receipts: one batch.
   */
  void insertContexts(List<ReceiptRow> rows, List<ReceiptContexts.Cut> cuts) {
    String sql =
        "INSERT INTO receipt_contexts (workspace_id, sha256, context_json) VALUES (?, ?, ?)"
            + " ON CONFLICT (workspace_id, sha256) DO NOTHING";
    Set<List<String>> seen = new HashSet<>();
    try {
      PreparedStatement ps = null;
      for (int i = 0; i < rows.size(); i++) {
        ReceiptContexts.Cut cut = cuts.get(i);
        if (!cut.isCut() || !seen.add(List.of(rows.get(i).workspaceId(), cut.sha256()))) {
          continue;
        }
        if (ps == null) {
          ps = statements.prepare(sql);
        }
        ps.setString(1, rows.get(i).workspaceId());
        ps.setString(2, cut.sha256());
        ps.setString(3, cut.context());
        ps.addBatch();
      }
      if (ps != null) {
        ps.executeBatch();
      }
    } catch (SQLException e) {
      throw failure(sql, e);
    }
  }

  /** Each receipt's payload as stored (see {@link ReceiptContexts}); its contexts stored first. */
  List<ReceiptContexts.Cut> cutAndStoreContexts(List<ReceiptRow> rows) {
    List<ReceiptContexts.Cut> cuts = new ArrayList<>(rows.size());
    for (ReceiptRow row : rows) {
      cuts.add(ReceiptContexts.cut(row.payloadJson()));
    }
    insertContexts(rows, cuts);
    return cuts;
  }

  Object[] receiptParams(ReceiptRow row, ReceiptContexts.Cut cut) {
    return new Object[] {
      row.workspaceId(),
      row.receiptId(),
      row.authorizationId(),
      row.userId(),
      row.resource(),
      row.sessionId(),
      row.scope(),
      row.event(),
      row.decision(),
      row.issuedAt(),
      cut.text(),
      storedSignature(row, cut),
      cut.at() == null ? NULL_INTEGER : cut.at(),
      cut.sha256()
    };
  }

  @Override
  public Optional<ReceiptRow> receipt(String workspaceId, String receiptId) {
    return one(
        "SELECT " + RECEIPT_SELECT + " FROM receipts WHERE workspace_id = ? AND receipt_id = ?",
        JdbcTx::receiptRow,
        workspaceId,
        receiptId);
  }

  /**
   * Lists receipts. {@code authorization_id} (receipts_by_authorization) or else {@code user_id}
   * (receipts_by_user) is served by an index in receipt_id order; every other filter is checked on
   * a bounded window of the rows that index (or the primary key) yields, see {@link #listPage}.
   */
  @Override
  public Page<ReceiptRow> listReceipts(String workspaceId, ReceiptFilter f, PageRequest page) {
    String afterId = page.after();
    int limit = page.limit();
    Where seek = new Where();
    Where rest = new Where();
    if (f.authorizationId() != null) {
      seek.and("authorization_id = ?", f.authorizationId());
      eq(rest, "user_id", f.userId());
    } else if (f.userId() != null) {
      seek.and("user_id = ?", f.userId());
    }
    eq(rest, "resource", f.resource());
    eq(rest, "session_id", f.sessionId());
    eq(rest, "scope", f.scope());
    eq(rest, "event", f.event());
    eq(rest, "decision", f.decision());
    if (f.from() != null) {
      rest.and(unindexed("issued_at") + " >= ?", f.from());
    }
    if (f.to() != null) {
      rest.and(unindexed("issued_at") + " < ?", f.to());
    }
    return listPage(
        "receipts",
        RECEIPT_SELECT,
        "receipt_id",
        workspaceId,
        seek,
        rest,
        afterId,
        limit,
        JdbcTx::receiptRow);
  }

  private void eq(Where where, String column, String value) {
    if (value != null) {
      where.and(unindexed(column) + " = ?", value);
    }
  }

  @Override
  public List<ReceiptRow> pendingReceipts(String afterId, int limit) {
    StringBuilder sql =
        new StringBuilder("SELECT ")
            .append(RECEIPT_SELECT)
            .append(" FROM receipts WHERE ")
            .append(dialect.unsignedReceipt);
    List<Object> params = new ArrayList<>();
    afterAndLimit(sql, params, "receipt_id", afterId, limit);
    return page(query(sql.toString(), JdbcTx::receiptRow, params.toArray()), limit).items();
  }

  @Override
  public long countPendingReceipts(long atMost) {
    return one(
            "SELECT count(*) FROM (SELECT 1 FROM receipts WHERE "
                + dialect.unsignedReceipt
                + " LIMIT ?) pending",
            rs -> rs.getLong(1),
            atMost)
        .orElse(0L);
  }

  @Override
  public List<ReceiptRow> pendingReceipts(String workspaceId, String afterId, int limit) {
    StringBuilder sql =
        new StringBuilder("SELECT ")
            .append(RECEIPT_SELECT)
            .append(" FROM receipts WHERE workspace_id = ? AND ")
            .append(dialect.unsignedReceipt);
    List<Object> params = new ArrayList<>();
    params.add(workspaceId);
    afterAndLimit(sql, params, "receipt_id", afterId, limit);
    return page(query(sql.toString(), JdbcTx::receiptRow, params.toArray()), limit).items();
  }

  @Override
  public long countPendingReceipts(String workspaceId, long atMost) {
    return one(
            "SELECT count(*) FROM (SELECT 1 FROM receipts WHERE workspace_id = ? AND "
                + dialect.unsignedReceipt
                + " LIMIT ?) pending",
            rs -> rs.getLong(1),
            workspaceId,
            atMost)
        .orElse(0L);
  }

  @Override
  public List<String> pendingWorkspaces(String afterWorkspaceId, int limit) {
    // One seek of the index receipts_pending_by_workspace per workspace: a loose index scan,
    // which neither database plans for SELECT DISTINCT.
    List<String> out = new ArrayList<>();
    String after = afterWorkspaceId;
    while (out.size() < limit) {
      String from = after;
      Optional<String> next =
          from == null
              ? one(
                  "SELECT workspace_id FROM receipts WHERE "
                      + dialect.unsignedReceipt
                      + " ORDER BY workspace_id LIMIT 1",
                  rs -> rs.getString(1))
              : one(
                  "SELECT workspace_id FROM receipts WHERE workspace_id > ? AND "
                      + dialect.unsignedReceipt
                      + " ORDER BY workspace_id LIMIT 1",
                  rs -> rs.getString(1),
                  from);
      if (next.isEmpty()) {
        break;
      }
      after = next.get();
      out.add(after);
    }
    return out;
  }

  @Override
  public List<ReceiptRow> claimPending(Instant issuedBefore, int limit) {
    return query(
        "SELECT "
            + RECEIPT_SELECT
            + " FROM receipts WHERE "
            + dialect.unsignedReceipt
            + " AND issued_at < ?"
            + " ORDER BY receipt_id LIMIT ?"
            + dialect.forUpdateSkipLocked,
        JdbcTx::receiptRow,
        issuedBefore,
        limit);
  }

  // ---- idempotency

  @Override
  public Optional<IdempotencyRow> idempotency(String apiKeyHash, String idempotencyKey) {
    return one(
        "SELECT api_key_hash, idempotency_key, request_hash, status, content_type, body,"
            + " created_at FROM idempotency WHERE api_key_hash = ? AND idempotency_key = ?",
        rs ->
            new IdempotencyRow(
                rs.getString(1),
                rs.getString(2),
                rs.getString(3),
                rs.getInt(4),
                rs.getString(5),
                rs.getBytes(6),
                instant(rs, 7)),
        apiKeyHash,
        idempotencyKey);
  }

  @Override
  public void insertIdempotency(IdempotencyRow row) {
    update(
        "INSERT INTO idempotency (api_key_hash, idempotency_key, request_hash, status,"
            + " content_type, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
            + " ON CONFLICT (api_key_hash, idempotency_key) DO UPDATE SET"
            + " request_hash = excluded.request_hash, status = excluded.status,"
            + " content_type = excluded.content_type, body = excluded.body,"
            + " created_at = excluded.created_at",
        row.apiKeyHash(),
        row.idempotencyKey(),
        row.requestHash(),
        row.status(),
        row.contentType(),
        row.body(),
        row.createdAt());
  }

  @Override
  public int purgeIdempotency(Instant cutoff) {
    return update("DELETE FROM idempotency WHERE created_at < ?", cutoff);
  }

  // ---- receipt usage

  @Override
  public Map<String, ReceiptUsage> receiptUsages(LocalDate day) {
    Map<String, ReceiptUsage> out = new LinkedHashMap<>();
    for (Map.Entry<String, ReceiptUsage> e :
        query(
            "SELECT workspace_id, receipts, bytes FROM receipt_usage WHERE day = ?",
            rs -> Map.entry(rs.getString(1), new ReceiptUsage(rs.getLong(2), rs.getLong(3))),
            day.toString())) {
      out.put(e.getKey(), e.getValue());
    }
    return out;
  }

  @Override
  public void addReceiptUsage(String workspaceId, LocalDate day, long receipts, long bytes) {
    update(
        "INSERT INTO receipt_usage (workspace_id, day, receipts, bytes) VALUES (?, ?, ?, ?)"
            + " ON CONFLICT (day, workspace_id) DO UPDATE SET"
            + " receipts = receipt_usage.receipts + excluded.receipts,"
            + " bytes = receipt_usage.bytes + excluded.bytes",
        workspaceId,
        day.toString(),
        receipts,
        bytes);
  }

  /** Reads a value of the meta table. */
  Optional<byte[]> meta(String name) {
    return one("SELECT value FROM meta WHERE name = ?", rs -> rs.getBytes(1), name);
  }

  /** Writes a value of the meta table unless one exists; returns whether it wrote. */
  boolean insertMetaIfAbsent(String name, byte[] value) {
    return update(
            "INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
            name,
            value)
        == 1;
  }
}
