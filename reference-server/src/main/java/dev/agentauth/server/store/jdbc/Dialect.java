package dev.agentauth.server.store.jdbc;

/** What differs between the SQL databases the JDBC store supports. */
enum Dialect {
  SQLITE("sqlite", "rowid", "", "", "signature IS NULL"),
  POSTGRES("postgresql", "seq", " FOR UPDATE", " FOR UPDATE SKIP LOCKED", "signed_json IS NULL");

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

  /**
   * "Not signed yet", as the partial index {@code receipts_pending} is declared, so the planner
   * uses it. SQLite stores the signature member alone (migration V3); PostgreSQL the signed text.
   */
  final String unsignedReceipt;

  Dialect(
      String migrations,
      String insertOrder,
      String forUpdate,
      String forUpdateSkipLocked,
      String unsignedReceipt) {
    this.migrations = migrations;
    this.insertOrder = insertOrder;
    this.forUpdate = forUpdate;
    this.forUpdateSkipLocked = forUpdateSkipLocked;
    this.unsignedReceipt = unsignedReceipt;
  }
}
