package dev.agentauth.server;

import static dev.agentauth.server.CheckFixtures.authorizeScopes;
import static dev.agentauth.server.CheckFixtures.check;
import static dev.agentauth.server.CheckFixtures.receiptId;
import static dev.agentauth.server.CheckFixtures.verifiedReceipt;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.store.PostgresTestDatabase;
import dev.agentauth.server.store.Store;
import dev.agentauth.server.store.jdbc.JdbcStore;
import dev.agentauth.server.store.jdbc.MasterKey;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A check's {@code context} is stored once per workspace however many scope receipts carry it (SQL
 * stores, migrations PostgreSQL V9 and SQLite V10), and every receipt still reads back as it was
 * signed: verified with the workspace's key, the same text from {@code GET /v1/receipts/{id}} and
 * the listing, with the context in its canonical form.
 */
class SharedReceiptContextIT {
  @TempDir Path dir;
  private String postgresUrl;

  @AfterEach
  void dropSchema() {
    if (postgresUrl != null) {
      PostgresTestDatabase.dropSchema(postgresUrl);
    }
  }

  static final int SCOPES = 20;

  /**
   * A context of about 15 KiB with what could trip a cut: non-ASCII and astral characters, escaped
   * quotes, a nested member named {@code context}, arrays and numbers.
   */
  static String bigContext(String tag) {
    return "{\"tag\":\""
        + tag
        + "\",\"note\":\"caf\u00e9 \\\"context\\\": \uD83D\uDE00\",\"nested\":{\"context\":[1,2,{\"a\":\"}\"}]},"
        + "\"blob\":\""
        + "x".repeat(15_000)
        + "\"}";
  }

  private Store store(String kind) {
    MasterKey key = MasterKey.random();
    switch (kind) {
      case "memory":
        return null;
      case "sqlite":
        return JdbcStore.sqlite(dir.resolve("agentauth.db"), key);
      default:
        PostgresTestDatabase.assumeAvailable();
        postgresUrl = PostgresTestDatabase.freshSchemaUrl();
        return JdbcStore.postgres(postgresUrl, key);
    }
  }

  private String jdbcUrl(String kind) {
    return kind.equals("sqlite") ? "jdbc:sqlite:" + dir.resolve("agentauth.db") : postgresUrl;
  }

  private static long count(String url, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      assertThat(rs.next()).isTrue();
      return rs.getLong(1);
    }
  }

  private static String in(List<String> ids) {
    return "receipt_id IN ('" + String.join("', '", ids) + "')";
  }

  /** How many different stored contexts the receipts {@code ids} refer to. */
  private static String distinctContexts(List<String> ids) {
    return "SELECT count(DISTINCT context_sha256) FROM receipts WHERE " + in(ids);
  }

  private static String[] scopes() {
    String[] scopes = new String[SCOPES];
    for (int i = 0; i < SCOPES; i++) {
      scopes[i] = "s" + i + ".read";
    }
    return scopes;
  }

  /** The receipt ids of a check's results, in scope order. */
  private static List<String> receiptIds(JsonNode response) {
    List<String> ids = new ArrayList<>();
    for (String scope : scopes()) {
      ids.add(receiptId(response.path("results").path(scope)));
    }
    return ids;
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "sqlite", "postgres"})
  void aChecksReceiptsReadBackSignedAndVerifiedWhileItsContextIsStoredOnce(String kind)
      throws SQLException {
    Store store = store(kind);
    AgentAuthServer.Builder builder = AgentAuthServer.builder();
    if (store != null) {
      builder.store(store);
    }
    try (ServerHarness h = ServerHarness.start(builder)) {
      String id = authorizeScopes(h, scopes());
      String big = bigContext("one");
      String small = "{\"tag\":\"small\"}";
      List<String> first = receiptIds(check(h, id, scopes()).context(big).ok());
      List<String> second = receiptIds(check(h, id, scopes()).context(big).ok());
      List<String> smallOnes = receiptIds(check(h, id, scopes()).context(small).ok());
      String other = bigContext("two");
      List<String> third = receiptIds(check(h, id, scopes()).context(other).ok());

      assertReadBack(h, first, big);
      assertReadBack(h, second, big);
      assertReadBack(h, smallOnes, small);
      assertReadBack(h, third, other);

      // The listing (summaries, read through the same join) finds every receipt in id order.
      List<String> all = new ArrayList<>();
      for (List<String> ids : List.of(first, second, smallOnes, third)) {
        all.addAll(ids);
      }
      List<String> listed = CheckFixtures.receiptIds(h, "authorization_id=" + id);
      // The authorization's creation receipt, then the checks' receipts.
      assertThat(listed).hasSize(all.size() + 1);
      assertThat(listed.subList(1, listed.size()))
          .containsExactlyElementsOf(all.stream().sorted().toList());

      if (!kind.equals("memory")) {
        String url = jdbcUrl(kind);
        // Two checks with the same big context share one stored context; the small one is not
        // shared; the other big one has its own; every stored context is some receipt's.
        List<String> both = new ArrayList<>(first);
        both.addAll(second);
        assertThat(count(url, distinctContexts(both))).isEqualTo(1);
        assertThat(count(url, distinctContexts(third))).isEqualTo(1);
        List<String> bigOnes = new ArrayList<>(both);
        bigOnes.addAll(third);
        assertThat(count(url, distinctContexts(bigOnes))).isEqualTo(2);
        assertThat(count(url, distinctContexts(smallOnes))).isZero();
        assertThat(
                count(
                    url,
                    "SELECT count(*) FROM receipts WHERE context_sha256 IS NULL AND "
                        + in(smallOnes)))
            .isEqualTo(SCOPES);
        assertThat(count(url, "SELECT count(*) FROM receipt_contexts"))
            .isEqualTo(count(url, "SELECT count(DISTINCT context_sha256) FROM receipts"));
        // No receipt row holds the big context any more, neither payload nor signed text.
        assertThat(
                count(
                    url,
                    "SELECT count(*) FROM receipts WHERE length(payload_json) > 5000"
                        + " OR length(signed_json) > 5000"))
            .isZero();
      }
    }
  }

  /** Each receipt is signed, verifies with the workspace key and reads with its context exact. */
  private static void assertReadBack(ServerHarness h, List<String> ids, String context) {
    // The receipt's context holds the client's as client_context (docs/receipt-format.md).
    for (String rid : ids) {
      JsonNode signed = verifiedReceipt(h, rid);
      assertThat(signed.path("context").path("client_context")).isEqualTo(h.json(context));
      // Once in the receipt log the answer also shows log_index: read twice after that.
      Resp raw = h.get("/v1/receipts/" + rid);
      long deadline = System.nanoTime() + java.time.Duration.ofSeconds(10).toNanos();
      while (!raw.body().has("log_index")) {
        h.server.logIntegrator().integrateAll();
        assertThat(System.nanoTime()).as("receipt %s in the log", rid).isLessThan(deadline);
        raw = h.get("/v1/receipts/" + rid);
      }
      assertThat(h.get("/v1/receipts/" + rid).raw()).isEqualTo(raw.raw());
    }
  }
}
