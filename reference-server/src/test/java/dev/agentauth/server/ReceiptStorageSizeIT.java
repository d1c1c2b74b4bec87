package dev.agentauth.server;

import static dev.agentauth.server.CheckFixtures.authorizeScopes;
import static dev.agentauth.server.CheckFixtures.check;
import static dev.agentauth.server.CheckFixtures.receiptId;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.server.store.jdbc.JdbcStore;
import dev.agentauth.server.store.jdbc.MasterKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a 20-scope check with a 16 KiB {@code context} costs on disk with SQLite, once its receipts
 * are signed: its context is stored once, not once per scope (docs/server.md, Storage). The figures
 * are printed for the documentation.
 */
class ReceiptStorageSizeIT {
  @TempDir Path dir;

  private static final int SCOPES = 20;
  private static final int CHECKS = 50;

  private static long size(Path file) throws IOException {
    return Files.exists(file) ? Files.size(file) : 0;
  }

  /** A context of 16,000 bytes, different for each check (so nothing is shared across checks). */
  private static String context(int n) {
    String head = "{\"check\":" + n + ",\"blob\":\"";
    return head + "z".repeat(16_000 - head.length() - 2) + "\"}";
  }

  @Test
  void aTwentyScopeCheckWithA16KiBContextStoresTheContextOnce() throws IOException {
    Path db = dir.resolve("size.db");
    Path wal = dir.resolve("size.db-wal");
    String[] scopes = new String[SCOPES];
    for (int i = 0; i < SCOPES; i++) {
      scopes[i] = "s" + i + ".read";
    }
    long before;
    long running;
    try (ServerHarness h =
        ServerHarness.start(
            AgentAuthServer.builder().store(JdbcStore.sqlite(db, MasterKey.random())))) {
      String id = authorizeScopes(h, scopes);
      JsonNode warm = check(h, id, scopes).context(context(-1)).ok();
      h.signedReceipt(receiptId(warm.path("results").path(scopes[SCOPES - 1])));
      before = size(db) + size(wal);
      String last = null;
      for (int n = 0; n < CHECKS; n++) {
        JsonNode r = check(h, id, scopes).context(context(n)).ok();
        last = receiptId(r.path("results").path(scopes[SCOPES - 1]));
      }
      // The signer goes through a workspace's receipts in id order: the last one signed is the
      // last one issued.
      h.signedReceipt(last);
      running = size(db) + size(wal);
    }
    long closed = size(db);
    System.out.printf("after close: database %d bytes, WAL %d bytes%n", size(db), size(wal));
    long perCheckRunning = (running - before) / CHECKS;
    long perCheckClosed = closed / (CHECKS + 1);
    System.out.printf(
        "SQLite, %d checks of %d scopes with a 16,000-byte context, all signed: database + WAL grew"
            + " %d bytes while running (%d per check, %d per receipt); database after close %d bytes"
            + " (%d per check; the WAL file keeps its size after a checkpoint, so it is not"
            + " counted)%n",
        CHECKS,
        SCOPES,
        running - before,
        perCheckRunning,
        perCheckRunning / SCOPES,
        closed,
        perCheckClosed);
    try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + db);
        java.sql.Statement st = c.createStatement();
        java.sql.ResultSet rs =
            st.executeQuery(
                "SELECT (SELECT count(*) FROM receipt_contexts),"
                    + " (SELECT count(*) FROM receipts),"
                    + " (SELECT sum(length(payload_json) + coalesce(length(signature), 0))"
                    + " FROM receipts), (SELECT sum(length(context_json)) FROM receipt_contexts),"
                    + " (SELECT count(*) FROM receipts WHERE context_sha256 IS NOT NULL)")) {
      try (java.sql.ResultSet pages =
          c.createStatement()
              .executeQuery(
                  "SELECT p.page_count, f.freelist_count, s.page_size FROM pragma_page_count p,"
                      + " pragma_freelist_count f, pragma_page_size s")) {
        pages.next();
        System.out.printf(
            "pages %d, free %d, page size %d%n",
            pages.getLong(1), pages.getLong(2), pages.getLong(3));
      }
      rs.next();
      System.out.printf(
          "contexts %d, receipts %d (%d cut), receipt text %d, context text %d%n",
          rs.getLong(1), rs.getLong(2), rs.getLong(5), rs.getLong(3), rs.getLong(4));
    } catch (java.sql.SQLException e) {
      throw new AssertionError(e);
    }
    // Once per scope, the contexts alone would take 20 x 16,000 = 320,000 bytes per check.
    assertThat(perCheckClosed).isLessThan(3 * 16_000);
  }
}
