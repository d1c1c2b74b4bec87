package dev.agentauth.server.store.jdbc;

import dev.agentauth.server.store.PostgresTestDatabase;

/**
 * Group commit on the PostgreSQL store (skipped, saying how to provide a server, when none
 * answers): a group locks its authorizations with one statement and commits once.
 */
class PostgresGroupedTransactionsIT extends GroupedTransactionsContract {
  private String url;

  @Override
  JdbcStore open() {
    PostgresTestDatabase.assumeAvailable();
    url = PostgresTestDatabase.freshSchemaUrl();
    return JdbcStore.postgres(url, MasterKey.random());
  }

  @Override
  void afterClose() {
    if (url != null) {
      PostgresTestDatabase.dropSchema(url);
    }
  }
}
