package dev.agentauth.server;

import dev.agentauth.server.store.PostgresTestDatabase;
import dev.agentauth.server.store.Store;
import dev.agentauth.server.store.jdbc.JdbcStore;
import dev.agentauth.server.store.jdbc.MasterKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The store the HTTP test suite runs on, chosen by the system property {@code
 * agentauth.test.store}: {@code memory} (the default), {@code sqlite} (a fresh database file per
 * server) or {@code postgres} (a fresh schema per server; tests skip with a message when PostgreSQL
 * is absent). The build runs the suite once per store.
 */
final class TestStores {
  static final String KIND = System.getProperty("agentauth.test.store", "memory");

  /** A store and what removes its data afterwards. */
  record Opened(Store store, Runnable cleanup) {}

  private TestStores() {}

  /** A fresh store of {@link #KIND}, or null for memory (the server's default). */
  static Opened open() {
    switch (KIND) {
      case "memory":
        return null;
      case "sqlite":
        try {
          Path dir = Files.createTempDirectory("agentauth-it-");
          return new Opened(
              JdbcStore.sqlite(dir.resolve("agentauth.db"), MasterKey.random()),
              () -> deleteTree(dir));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      case "postgres":
        PostgresTestDatabase.assumeAvailable();
        String url = PostgresTestDatabase.freshSchemaUrl();
        return new Opened(
            JdbcStore.postgres(url, MasterKey.random()),
            () -> PostgresTestDatabase.dropSchema(url));
      default:
        throw new IllegalArgumentException(
            "agentauth.test.store must be memory, sqlite or postgres, got " + KIND);
    }
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
