package dev.agentauth.server.store.jdbc;

/** What differs between the SQL databases the JDBC store supports. */
enum Dialect {
  SQLITE("sqlite", "rowid", "", ""),
  POSTGRES("postgresql", "seq", " FOR UPDATE", " FOR UPDATE SKIP LOCKED");

  /** The Flyway location of this dialect's migrations, under {@code db/migration}. */
  final String migrations;

  /** The column giving insertion order, for "newest" lookups. */
  final String insertOrder;

  /**
   * The suffix that locks selected rows until the transaction ends. SQLite needs none: its write
   * transactions ({@code BEGIN IMMEDIATE}) run one at a time.
   */
  final String forUpdate;

  /** The suffix that locks selected rows and skips rows other transactions hold. */
  final String forUpdateSkipLocked;

  Dialect(String migrations, String insertOrder, String forUpdate, String forUpdateSkipLocked) {
    this.migrations = migrations;
    this.insertOrder = insertOrder;
    this.forUpdate = forUpdate;
    this.forUpdateSkipLocked = forUpdateSkipLocked;
  }
}
