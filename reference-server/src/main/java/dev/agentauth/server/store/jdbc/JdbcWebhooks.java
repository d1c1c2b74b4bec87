package dev.agentauth.server.store.jdbc;

import dev.agentauth.server.store.Page;
import dev.agentauth.server.store.PageRequest;
import dev.agentauth.server.store.WebhookDeliveryRow;
import dev.agentauth.server.store.WebhookEvent;
import dev.agentauth.server.store.WebhookRow;
import dev.agentauth.server.store.WebhookTx.Attempt;
import dev.agentauth.server.store.WebhookTx.Claimed;
import dev.agentauth.server.store.WebhookTx.Outbox;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The webhook statements of a {@link JdbcTx} (tables of migrations V11 and V12 on PostgreSQL, V12
 * and V13 on SQLite). Secrets are sealed with the master key like signing seeds.
 */
final class JdbcWebhooks {
  private static final String DELIVERY_COLUMNS =
      "d.workspace_id, d.webhook_id, d.event_id, d.event_type, d.event_created_at, d.payload,"
          + " d.authorization_id, d.subject_id, d.status, d.attempts, d.next_attempt_at,"
          + " d.last_attempt_at, d.last_status_code, d.last_error, d.delivered_at";
  private static final int DELIVERY_COLUMN_COUNT = DELIVERY_COLUMNS.split(",").length;

  private final JdbcTx tx;
  private final Dialect dialect;
  private final MasterKey masterKey;

  JdbcWebhooks(JdbcTx tx, Dialect dialect, MasterKey masterKey) {
    this.tx = tx;
    this.dialect = dialect;
    this.masterKey = masterKey;
  }

  private static String secretAad(String workspaceId, String webhookId) {
    return "webhook-secret:" + workspaceId + ":" + webhookId;
  }

  private static Instant instant(ResultSet rs, int column) throws SQLException {
    long v = rs.getLong(column);
    return rs.wasNull() ? null : Instant.ofEpochMilli(v);
  }

  private static Object millis(Instant t) {
    return t == null ? new JdbcTx.Null(Types.BIGINT) : t;
  }

  private static String eventsColumn(List<String> events) {
    return "," + String.join(",", events) + ",";
  }

  private WebhookRow webhook(ResultSet rs) throws SQLException {
    String ws = rs.getString(1);
    String id = rs.getString(2);
    String events = rs.getString(4);
    return new WebhookRow(
        ws,
        id,
        rs.getString(3),
        Arrays.stream(events.split(",")).filter(e -> !e.isEmpty()).toList(),
        masterKey.open(rs.getBytes(5), secretAad(ws, id)),
        instant(rs, 6));
  }

  private static WebhookDeliveryRow delivery(ResultSet rs) throws SQLException {
    int code = rs.getInt(13);
    Integer statusCode = rs.wasNull() ? null : code;
    return new WebhookDeliveryRow(
        rs.getString(1),
        rs.getString(2),
        rs.getString(3),
        rs.getString(4),
        instant(rs, 5),
        rs.getString(6),
        rs.getString(7),
        rs.getString(8),
        rs.getString(9),
        rs.getInt(10),
        instant(rs, 11),
        instant(rs, 12),
        statusCode,
        rs.getString(14),
        instant(rs, 15));
  }

  void insertWebhook(WebhookRow row) {
    tx.update(
        "INSERT INTO webhooks (workspace_id, webhook_id, url, events, secret_sealed, created_at)"
            + " VALUES (?, ?, ?, ?, ?, ?)",
        row.workspaceId(),
        row.webhookId(),
        row.url(),
        eventsColumn(row.events()),
        masterKey.seal(row.secret(), secretAad(row.workspaceId(), row.webhookId())),
        row.createdAt());
  }

  private static final String WEBHOOK_SELECT =
      "SELECT workspace_id, webhook_id, url, events, secret_sealed, created_at FROM webhooks";

  List<WebhookRow> webhooks(String workspaceId) {
    return tx.query(
        WEBHOOK_SELECT + " WHERE workspace_id = ? ORDER BY webhook_id", this::webhook, workspaceId);
  }

  Optional<WebhookRow> webhook(String workspaceId, String webhookId) {
    return tx.one(
        WEBHOOK_SELECT + " WHERE workspace_id = ? AND webhook_id = ?",
        this::webhook,
        workspaceId,
        webhookId);
  }

  boolean deleteWebhook(String workspaceId, String webhookId) {
    int n =
        tx.update(
            "DELETE FROM webhooks WHERE workspace_id = ? AND webhook_id = ?",
            workspaceId,
            webhookId);
    if (n == 0) {
      return false;
    }
    tx.update(
        "DELETE FROM webhook_deliveries WHERE workspace_id = ? AND webhook_id = ?",
        workspaceId,
        webhookId);
    return true;
  }

  Page<WebhookDeliveryRow> listWebhookDeliveries(
      String workspaceId, String webhookId, PageRequest page) {
    List<Object> params = new ArrayList<>(List.of(workspaceId, webhookId));
    String after = "";
    if (page.after() != null) {
      after = " AND d.event_id < ?";
      params.add(page.after());
    }
    params.add(page.limit() + 1);
    List<WebhookDeliveryRow> rows =
        tx.query(
            "SELECT "
                + DELIVERY_COLUMNS
                + " FROM webhook_deliveries d WHERE d.workspace_id = ? AND d.webhook_id = ?"
                + after
                + " ORDER BY d.event_id DESC LIMIT ?",
            JdbcWebhooks::delivery,
            params.toArray());
    return rows.size() > page.limit()
        ? new Page<>(rows.subList(0, page.limit()), true)
        : new Page<>(rows, false);
  }

  void enqueue(WebhookEvent e) {
    tx.update(
        "INSERT INTO webhook_deliveries (webhook_id, event_id, workspace_id, event_type,"
            + " event_created_at, payload, authorization_id, subject_id, status, attempts,"
            + " next_attempt_at) SELECT webhook_id, ?, workspace_id, ?, ?, ?, ?, ?, 'pending', 0, ?"
            + " FROM webhooks WHERE workspace_id = ? AND events LIKE ?",
        e.eventId(),
        e.type(),
        e.createdAt(),
        e.payload(),
        e.authorizationId(),
        e.subjectId(),
        e.dueAt(),
        e.workspaceId(),
        "%," + e.type() + ",%");
  }

  void reschedule(String workspaceId, String authorizationId, String type, Instant at) {
    tx.update(
        "UPDATE webhook_deliveries SET next_attempt_at = ? WHERE workspace_id = ?"
            + " AND authorization_id = ? AND status = 'pending' AND event_type = ?"
            + " AND next_attempt_at > ?",
        at,
        workspaceId,
        authorizationId,
        type,
        at);
  }

  List<Claimed> claim(
      Instant dueBy,
      Instant leaseNow,
      Instant leaseUntil,
      String owner,
      Set<String> skipWebhooks,
      int limit) {
    List<Object> params = new ArrayList<>(List.of(dueBy, leaseNow));
    StringBuilder skip = new StringBuilder();
    if (!skipWebhooks.isEmpty()) {
      skip.append(" AND d.webhook_id NOT IN (");
      for (String id : skipWebhooks) {
        skip.append(params.size() == 2 ? "?" : ", ?");
        params.add(id);
      }
      skip.append(')');
    }
    params.add(limit);
    // Only the delivery rows are locked: another instance may claim other deliveries of the same
    // webhook at once.
    String lock = dialect == Dialect.POSTGRES ? " FOR UPDATE OF d SKIP LOCKED" : "";
    List<Claimed> claimed =
        tx.query(
            "SELECT "
                + DELIVERY_COLUMNS
                + ", w.url, w.secret_sealed FROM webhook_deliveries d JOIN webhooks w"
                + " ON w.workspace_id = d.workspace_id AND w.webhook_id = d.webhook_id"
                + " WHERE d.status = 'pending' AND d.next_attempt_at <= ?"
                + " AND (d.lease_until IS NULL OR d.lease_until <= ?)"
                + skip
                + " ORDER BY d.next_attempt_at LIMIT ?"
                + lock,
            rs -> {
              WebhookDeliveryRow d = delivery(rs);
              byte[] secret =
                  masterKey.open(
                      rs.getBytes(DELIVERY_COLUMN_COUNT + 2),
                      secretAad(d.workspaceId(), d.webhookId()));
              return new Claimed(d, rs.getString(DELIVERY_COLUMN_COUNT + 1), secret);
            },
            params.toArray());
    for (Claimed c : claimed) {
      tx.update(
          "UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ?"
              + " WHERE webhook_id = ? AND event_id = ?",
          owner,
          leaseUntil,
          c.delivery().webhookId(),
          c.delivery().eventId());
    }
    return claimed;
  }

  boolean record(Attempt a) {
    if (!a.counted()) {
      return tx.update(
              "UPDATE webhook_deliveries SET status = ?, next_attempt_at = ?, lease_owner = NULL,"
                  + " lease_until = NULL WHERE webhook_id = ? AND event_id = ? AND lease_owner = ?",
              a.status(),
              millis(a.nextAttemptAt()),
              a.webhookId(),
              a.eventId(),
              a.owner())
          > 0;
    }
    return tx.update(
            "UPDATE webhook_deliveries SET status = ?, next_attempt_at = ?, attempts = attempts + 1,"
                + " last_attempt_at = ?, last_status_code = ?, last_error = ?, delivered_at = ?,"
                + " lease_owner = NULL, lease_until = NULL"
                + " WHERE webhook_id = ? AND event_id = ? AND lease_owner = ?",
            a.status(),
            millis(a.nextAttemptAt()),
            a.at(),
            a.statusCode() == null ? JdbcTx.NULL_INTEGER : a.statusCode(),
            a.error(),
            millis("delivered".equals(a.status()) ? a.at() : null),
            a.webhookId(),
            a.eventId(),
            a.owner())
        > 0;
  }

  /**
   * Deletes a batch of finished deliveries whose event is older than {@code eventBefore}, found
   * through the index on (status, event_created_at) of migration V12 (PostgreSQL) / V13 (SQLite).
   * PostgreSQL skips rows another instance's prune or worker holds.
   */
  int prune(Instant eventBefore, int limit) {
    String finished =
        " FROM webhook_deliveries WHERE status IN ('delivered', 'failed', 'cancelled')"
            + " AND event_created_at < ? LIMIT ?";
    String sql =
        dialect == Dialect.POSTGRES
            ? "DELETE FROM webhook_deliveries WHERE (webhook_id, event_id) IN"
                + " (SELECT webhook_id, event_id"
                + finished
                + " FOR UPDATE SKIP LOCKED)"
            : "DELETE FROM webhook_deliveries WHERE rowid IN (SELECT rowid" + finished + ")";
    return tx.update(sql, eventBefore, limit);
  }

  Outbox outbox(Instant now, long atMost) {
    long pending =
        tx.one(
                "SELECT count(*) FROM (SELECT 1 FROM webhook_deliveries WHERE status = 'pending'"
                    + " AND event_created_at <= ? LIMIT ?) p",
                rs -> rs.getLong(1),
                now,
                atMost)
            .orElse(0L);
    Instant oldest =
        pending == 0
            ? null
            : tx.one(
                    "SELECT event_created_at FROM webhook_deliveries WHERE status = 'pending'"
                        + " AND event_created_at <= ? ORDER BY event_created_at LIMIT 1",
                    rs -> instant(rs, 1),
                    now)
                .orElse(null);
    return new Outbox(pending, oldest);
  }

  int releaseLeases() {
    return tx.update(
        "UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL"
            + " WHERE lease_owner IS NOT NULL");
  }
}
