package dev.agentauth.server.store;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;

/**
 * The PostgreSQL server the durable-store tests use: {@code AGENTAUTH_TEST_POSTGRES_URL}, default
 * {@code jdbc:postgresql://127.0.0.1:5432/test?user=postgres} (trust auth). Each test gets a fresh
 * schema of its own, so tests never see each other's rows. When no server answers, tests calling
 * {@link #assumeAvailable()} are skipped with a message saying how to provide one.
 */
public final class PostgresTestDatabase {
  public static final String BASE_URL =
      System.getenv()
          .getOrDefault(
              "AGENTAUTH_TEST_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

  private static volatile Boolean available;

  private PostgresTestDatabase() {}

  /** Whether a PostgreSQL server answers at {@link #BASE_URL}. */
  public static boolean isAvailable() {
    Boolean a = available;
    if (a == null) {
      try (Connection c = DriverManager.getConnection(BASE_URL + "&connectTimeout=3")) {
        a = c.isValid(3);
      } catch (SQLException e) {
        a = false;
      }
      available = a;
    }
    return a;
  }

  /** Skips the calling test, saying why, unless PostgreSQL is reachable. */
  public static void assumeAvailable() {
    assumeTrue(
        isAvailable(),
        "PostgreSQL is not reachable at "
            + BASE_URL
            + ": start it (bash .ci/run does: pg_ctlcluster --skip-systemctl-redirect <version> main"
            + " start) or point AGENTAUTH_TEST_POSTGRES_URL at one; skipping the PostgreSQL test");
  }

  /**
   * Creates an empty schema and returns {@link #BASE_URL} with {@code currentSchema} set to it; the
   * store's migrations then create their tables there. Call {@link #assumeAvailable()} first.
   */
  public static String freshSchemaUrl() {
    String schema =
        "agentauth_t_" + UUID.randomUUID().toString().replace("-", "").toLowerCase(Locale.ROOT);
    try (Connection c = DriverManager.getConnection(BASE_URL);
        Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
    } catch (SQLException e) {
      throw new IllegalStateException("could not create test schema " + schema, e);
    }
    return BASE_URL + "&currentSchema=" + schema;
  }

  /** Drops the schema a {@link #freshSchemaUrl()} URL names, with everything in it. */
  public static void dropSchema(String url) {
    int at = url.indexOf("&currentSchema=");
    if (at < 0) {
      throw new IllegalArgumentException("not a fresh-schema URL: " + url);
    }
    String schema = url.substring(at + "&currentSchema=".length());
    try (Connection c = DriverManager.getConnection(BASE_URL);
        Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    } catch (SQLException e) {
      throw new IllegalStateException("could not drop test schema " + schema, e);
    }
  }
}
