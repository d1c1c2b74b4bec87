package dev.agentauth.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.server.store.jdbc.JdbcStore;
import dev.agentauth.server.store.jdbc.MasterKey;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SQLite migration V3: receipts written with the V2 schema, which stored each signed text whole,
 * read back byte for byte once only the signature member is stored; pending ones stay pending and
 * can be signed; and a signed text the new layout could not rebuild stops the upgrade with the old
 * table intact.
 */
class ReceiptSignatureMigrationIT {
  @TempDir Path dir;

  private final MasterKey key = MasterKey.random();

  private static final String AUTH = "auth_01jdq4m5v6w7x8y9z0a1b2c3d4";

  /** A canonical payload with non-ASCII text, a character outside the BMP and escaped quotes. */
  private static String payload(String id) {
    return "{\"authorization_id\":\""
        + AUTH
        + "\",\"decision\":\"allow\",\"reason\":\"caf\u00e9 \\\"ok\\\" \uD83D\uDE00\","
        + "\"receipt_id\":\""
        + id
        + "\",\"workspace_id\":\"ws_a\"}";
  }

  private static String member(String value) {
    return "{\"alg\":\"Ed25519\",\"key_id\":\"ws_a/01jdq4\",\"value\":\"" + value + "\"}";
  }

  private static String signed(String payload, String member) {
    return payload.substring(0, payload.length() - 1) + ",\"signature\":" + member + "}";
  }

  private static final String ID_SIGNED = "01JDQ4M5V6W7X8Y9Z0A1B2C3D4";
  private static final String ID_PENDING = "01JDQ4M5V6W7X8Y9Z0A1B2C3D5";
  private static final String ID_OTHER_WS = "01JDQ4M5V6W7X8Y9Z0A1B2C3D6";

  /** A database at schema V2, as the previous version left it. */
  private String v2Database(Path file) {
    String url = "jdbc:sqlite:" + file;
    Flyway.configure()
        .dataSource(url, null, null)
        .locations("classpath:db/migration/sqlite")
        .target("2")
        .load()
        .migrate();
    return url;
  }

  private static void insertV2Receipt(Connection c, String ws, String id, String signedJson)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO receipts (workspace_id, receipt_id, authorization_id, user_id, resource,"
                + " session_id, scope, event, decision, issued_at, payload_json, signed_json)"
                + " VALUES (?, ?, ?, 'user_1', NULL, NULL, 'email.send', NULL, 'allow', ?, ?,"
                + " ?)")) {
      ps.setString(1, ws);
      ps.setString(2, id);
      ps.setString(3, AUTH);
      ps.setLong(4, Instant.parse("2026-11-22T10:00:00Z").toEpochMilli());
      ps.setString(5, payload(id));
      ps.setString(6, signedJson);
      ps.executeUpdate();
    }
  }

  @Test
  void signedTextsReadBackByteForByteAndPendingReceiptsStayPending() throws SQLException {
    Path file = dir.resolve("v2.db");
    String url = v2Database(file);
    String signedText = signed(payload(ID_SIGNED), member("c2lnbmVk"));
    String otherText = signed(payload(ID_OTHER_WS), member("b3RoZXI"));
    try (Connection c = DriverManager.getConnection(url)) {
      insertV2Receipt(c, "ws_a", ID_SIGNED, signedText);
      insertV2Receipt(c, "ws_a", ID_PENDING, null);
      insertV2Receipt(c, "ws_b", ID_OTHER_WS, otherText);
    }

    try (Store s = JdbcStore.sqlite(file, key)) {
      s.read(
          tx -> {
            assertThat(tx.receipt("ws_a", ID_SIGNED).orElseThrow().signedJson())
                .isEqualTo(signedText);
            assertThat(tx.receipt("ws_b", ID_OTHER_WS).orElseThrow().signedJson())
                .isEqualTo(otherText);
            ReceiptRow pending = tx.receipt("ws_a", ID_PENDING).orElseThrow();
            assertThat(pending.isSigned()).isFalse();
            assertThat(pending.payloadJson()).isEqualTo(payload(ID_PENDING));
            assertThat(tx.pendingReceipts(null, 10))
                .extracting(ReceiptRow::receiptId)
                .containsExactly(ID_PENDING);
            assertThat(
                    tx.listReceipts(
                            "ws_a",
                            new ReceiptFilter(AUTH, null, null, null, null, null, null, null, null),
                            new PageRequest(null, 10))
                        .items())
                .extracting(ReceiptRow::receiptId)
                .containsExactly(ID_SIGNED, ID_PENDING);
            return null;
          });
      String pendingText = signed(payload(ID_PENDING), member("bGF0ZXI"));
      assertThat(s.inTransaction((Tx tx) -> tx.markSigned("ws_a", ID_PENDING, pendingText)))
          .isTrue();
      assertThat(s.read((Tx tx) -> tx.receipt("ws_a", ID_PENDING)).orElseThrow().signedJson())
          .isEqualTo(pendingText);
      assertThat(s.read((Tx tx) -> tx.pendingReceipts(null, 10))).isEmpty();
    }

    // Each payload is stored once now: the row keeps only the signature member.
    try (Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT signature FROM receipts WHERE receipt_id = '" + ID_SIGNED + "'")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo(member("c2lnbmVk"));
    }
  }

  @Test
  void aSignedTextTheNewLayoutCouldNotRebuildStopsTheUpgradeAndKeepsTheOldTable()
      throws SQLException {
    Path file = dir.resolve("odd.db");
    String url = v2Database(file);
    String good = signed(payload(ID_SIGNED), member("c2lnbmVk"));
    String odd = "{\"not\":\"the payload with a signature appended\"}";
    try (Connection c = DriverManager.getConnection(url)) {
      insertV2Receipt(c, "ws_a", ID_SIGNED, good);
      insertV2Receipt(c, "ws_a", ID_PENDING, odd);
    }

    assertThatThrownBy(() -> JdbcStore.sqlite(file, key))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("cannot migrate the schema")
        .hasMessageContaining("CHECK constraint failed");

    try (Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement()) {
      List<String> texts = new ArrayList<>();
      try (ResultSet rs = st.executeQuery("SELECT signed_json FROM receipts ORDER BY receipt_id")) {
        while (rs.next()) {
          texts.add(rs.getString(1));
        }
      }
      assertThat(texts).containsExactly(good, odd);
      try (ResultSet rs =
          st.executeQuery(
              "SELECT max(CAST(version AS INTEGER)) FROM flyway_schema_history WHERE success")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getInt(1)).isEqualTo(2);
      }
      try (ResultSet rs =
          st.executeQuery("SELECT count(*) FROM sqlite_schema WHERE name = 'receipts_v3'")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getInt(1)).isZero();
      }
    }
  }
}
