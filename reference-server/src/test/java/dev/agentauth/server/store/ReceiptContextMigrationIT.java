package dev.agentauth.server.store;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.List;
import java.util.function.Supplier;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shared-context migration (PostgreSQL V9, SQLite V10) on both dialects: receipts written whole
 * before it, with contexts large enough to be shared had they been written after, read back byte
 * for byte; a pending one is signed and reads back as signed; receipts written after it with the
 * same context are stored cut and share one context row, and read back byte for byte too.
 */
class ReceiptContextMigrationIT {
  @TempDir Path dir;

  private final MasterKey key = MasterKey.random();

  private static final String WS = "ws_a";
  private static final String AUTH = "auth_01jdq4m5v6w7x8y9z0a1b2c3d4";
  private static final String OLD_SIGNED = "01JDQ4M5V6W7X8Y9Z0A1B2C3D4";
  private static final String OLD_PENDING = "01JDQ4M5V6W7X8Y9Z0A1B2C3D5";
  private static final String NEW_1 = "01JDQ4M5V6W7X8Y9Z0A1B2C3D6";
  private static final String NEW_2 = "01JDQ4M5V6W7X8Y9Z0A1B2C3D7";

  /** A 4,000-character context with non-ASCII text, an astral character and escaped quotes. */
  private static final String CONTEXT =
      "{\"blob\":\"" + "y".repeat(4000) + "\",\"note\":\"caf\u00e9 \\\"ok\\\" \uD83D\uDE00\"}";

  /** A canonical payload carrying {@link #CONTEXT}. */
  private static String payload(String id) {
    return "{\"authorization_id\":\""
        + AUTH
        + "\",\"context\":"
        + CONTEXT
        + ",\"decision\":\"allow\",\"receipt_id\":\""
        + id
        + "\",\"workspace_id\":\""
        + WS
        + "\"}";
  }

  private static String member(String value) {
    return "{\"alg\":\"Ed25519\",\"key_id\":\"ws_a/01jdq4\",\"value\":\"" + value + "\"}";
  }

  private static String signed(String payload, String member) {
    return payload.substring(0, payload.length() - 1) + ",\"signature\":" + member + "}";
  }

  private static ReceiptRow row(String id, String signedJson) {
    return new ReceiptRow(
        WS,
        id,
        AUTH,
        "user_1",
        null,
        null,
        "email.send",
        "check",
        "allow",
        Instant.parse("2026-11-22T10:00:00Z"),
        payload(id),
        signedJson);
  }

  @Test
  void sqliteReceiptsWrittenWholeReadBackAndNewOnesShareTheirContext() throws Exception {
    Path file = dir.resolve("upgrade.db");
    String url = "jdbc:sqlite:" + file;
    // SQLite V3 and later store the signature member alone; signed_json is generated.
    upgrades(
        url, "sqlite", "8", "signature", member("c2lnbmVk"), () -> JdbcStore.sqlite(file, key));
  }

  @Test
  void postgresReceiptsWrittenWholeReadBackAndNewOnesShareTheirContext() throws Exception {
    PostgresTestDatabase.assumeAvailable();
    String url = PostgresTestDatabase.freshSchemaUrl();
    try {
      upgrades(
          url,
          "postgresql",
          "7",
          "signed_json",
          signed(payload(OLD_SIGNED), member("c2lnbmVk")),
          () -> JdbcStore.postgres(url, key));
    } finally {
      PostgresTestDatabase.dropSchema(url);
    }
  }

  private static void upgrades(
      String url,
      String dialect,
      String lastVersionBefore,
      String signatureColumn,
      String storedSignature,
      Supplier<Store> open)
      throws Exception {
    Flyway.configure()
        .dataSource(url, null, null)
        .locations("classpath:db/migration/" + dialect)
        .target(lastVersionBefore)
        .load()
        .migrate();
    try (Connection c = DriverManager.getConnection(url)) {
      insertOld(c, signatureColumn, OLD_SIGNED, storedSignature);
      insertOld(c, signatureColumn, OLD_PENDING, null);
    }
    String oldSigned = signed(payload(OLD_SIGNED), member("c2lnbmVk"));
    String laterSigned = signed(payload(OLD_PENDING), member("bGF0ZXI"));
    String new1Signed = signed(payload(NEW_1), member("bmV3MQ"));

    try (Store s = open.get()) {
      assertThat(s.read((Tx tx) -> tx.receipt(WS, OLD_SIGNED)))
          .contains(row(OLD_SIGNED, oldSigned));
      assertThat(s.read((Tx tx) -> tx.receipt(WS, OLD_PENDING))).contains(row(OLD_PENDING, null));
      assertThat(s.read((Tx tx) -> tx.pendingReceipts(null, 10)))
          .containsExactly(row(OLD_PENDING, null));

      // Written after the migration: stored cut, one context for both.
      s.inTransaction(
          (Tx tx) -> {
            tx.insertReceipt(row(NEW_1, null));
            tx.insertReceipt(row(NEW_2, null));
            return null;
          });
      assertThat(s.read((Tx tx) -> tx.pendingReceipts(WS, null, 10)))
          .containsExactly(row(OLD_PENDING, null), row(NEW_1, null), row(NEW_2, null));

      // The signer stores signatures for old and new rows alike, in one batch.
      boolean[] stored =
          s.inTransaction(
              (Tx tx) ->
                  tx.markSignedAll(
                      List.of(
                          new SigningTx.Signed(WS, OLD_PENDING, laterSigned),
                          new SigningTx.Signed(WS, NEW_1, new1Signed))));
      assertThat(stored).containsExactly(true, true);
      // A text whose context differs from the stored one is refused, cut or not.
      String otherContext = signed(payload(NEW_2).replace("yyy", "yzy"), member("eA"));
      assertThat(s.inTransaction((Tx tx) -> tx.markSigned(WS, NEW_2, otherContext))).isFalse();

      assertThat(s.read((Tx tx) -> tx.receipt(WS, OLD_PENDING)))
          .contains(row(OLD_PENDING, laterSigned));
      assertThat(s.read((Tx tx) -> tx.receipt(WS, NEW_1))).contains(row(NEW_1, new1Signed));
      assertThat(
              s.read(
                      tx ->
                          tx.listReceipts(
                              WS,
                              new ReceiptFilter(
                                  AUTH, null, null, null, null, null, null, null, null),
                              new PageRequest(null, 10)))
                  .items())
          .containsExactly(
              row(OLD_SIGNED, oldSigned),
              row(OLD_PENDING, laterSigned),
              row(NEW_1, new1Signed),
              row(NEW_2, null));
    }

    try (Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement()) {
      try (ResultSet rs = st.executeQuery("SELECT count(*) FROM receipt_contexts")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getLong(1)).isEqualTo(1);
      }
      // The old rows stay whole; the new ones hold no copy of the context.
      try (ResultSet rs =
          st.executeQuery(
              "SELECT receipt_id, context_sha256 IS NULL, length(payload_json) > 4000"
                  + " FROM receipts ORDER BY receipt_id")) {
        for (String[] expected :
            List.of(
                new String[] {OLD_SIGNED, "true", "true"},
                new String[] {OLD_PENDING, "true", "true"},
                new String[] {NEW_1, "false", "false"},
                new String[] {NEW_2, "false", "false"})) {
          assertThat(rs.next()).isTrue();
          assertThat(rs.getString(1)).isEqualTo(expected[0]);
          assertThat(rs.getBoolean(2)).isEqualTo(Boolean.parseBoolean(expected[1]));
          assertThat(rs.getBoolean(3)).isEqualTo(Boolean.parseBoolean(expected[2]));
        }
      }
    }
  }

  private static void insertOld(Connection c, String signatureColumn, String id, String stored)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO receipts (workspace_id, receipt_id, authorization_id, user_id, resource,"
                + " session_id, scope, event, decision, issued_at, payload_json, "
                + signatureColumn
                + ") VALUES (?, ?, ?, 'user_1', NULL, NULL, 'email.send', 'check', 'allow', ?, ?,"
                + " ?)")) {
      ps.setString(1, WS);
      ps.setString(2, id);
      ps.setString(3, AUTH);
      ps.setLong(4, Instant.parse("2026-11-22T10:00:00Z").toEpochMilli());
      ps.setString(5, payload(id));
      ps.setString(6, stored);
      ps.executeUpdate();
    }
  }
}
