package dev.agentauth.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.store.jdbc.JdbcStore;
import dev.agentauth.server.store.jdbc.MasterKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store conformance suite against the SQLite {@link JdbcStore}, plus what only a file-backed
 * store has: durability across close and reopen, the master-key check, encryption of signing-key
 * seeds at rest and repeatable migrations.
 */
class SqliteStoreIT extends StoreConformance {
  @TempDir Path tempDir;

  private MasterKey key;

  private Path dbFile() {
    return tempDir.resolve("t.db");
  }

  @Override
  protected Store newStore() {
    key = MasterKey.random();
    return JdbcStore.sqlite(dbFile(), key);
  }

  /** Closes the test's store and opens the same file again with {@code withKey}. */
  private void reopen(MasterKey withKey) {
    store.close();
    store = null;
    store = JdbcStore.sqlite(dbFile(), withKey);
  }

  @Test
  void describesItselfAsSqliteWithItsFile() {
    assertThat(store.describe()).startsWith("sqlite:").contains("t.db");
  }

  @Test
  void everyTableSurvivesCloseAndReopenWithTheSameMasterKey() {
    writeOneOfEverything(store);
    reopen(key);
    assertOneOfEverything(store);
    // The reopened store keeps working: pending receipts resume, writes commit.
    assertThat(read((Tx tx) -> tx.pendingReceipts(null, 10)))
        .extracting(ReceiptRow::receiptId)
        .containsExactly(ulid(1));
    String text = signedJson(pendingReceipt(WS_A, ulid(1), at(0)), "c2lnbmVk");
    assertThat(store.inTransaction((Tx tx) -> tx.markSigned(WS_A, ulid(1), text))).isTrue();
    write(tx -> tx.addAllowCount(WS_A, authId(1), "calendar.read", DAY, 1));
    reopen(key);
    read(
        tx -> {
          assertThat(tx.receipt(WS_A, ulid(1)).orElseThrow().signedJson()).isEqualTo(text);
          assertThat(tx.pendingReceipts(null, 10)).isEmpty();
          assertThat(tx.allowCount(WS_A, authId(1), "calendar.read", DAY)).isEqualTo(4);
          return null;
        });
  }

  @Test
  void aCheckSeesWhatAnotherConnectionCommittedToTheSameFile() throws Exception {
    AuthorizationRow a = fullAuthorization(WS_A, authId(1));
    write(tx -> tx.insertAuthorization(a));
    assertThat(checkTarget(authId(1), "doc:1")).isEqualTo(target(a, false));
    // Another process with the same file, such as an operator's sqlite3 shell.
    try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement st = other.createStatement()) {
      st.execute("PRAGMA busy_timeout = 5000");
      st.executeUpdate(
          "UPDATE authorizations SET revoked_at = "
              + T0.toEpochMilli()
              + " WHERE authorization_id = '"
              + authId(1)
              + "'");
      st.executeUpdate(
          "INSERT INTO tombstones (workspace_id, resource, reason, created_at) VALUES ('"
              + WS_A
              + "', 'doc:1', NULL, 0)");
    }
    assertThat(checkTarget(authId(1), "doc:1")).isEqualTo(target(a.withRevokedAt(T0), true));
  }

  @Test
  void reopeningWithAnotherMasterKeyFailsNamingTheMasterKey() {
    writeOneOfEverything(store);
    store.close();
    store = null;
    assertThatThrownBy(() -> JdbcStore.sqlite(dbFile(), MasterKey.random()))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("master key");
    // The failed attempt changed nothing: the right key still opens everything.
    store = JdbcStore.sqlite(dbFile(), key);
    assertOneOfEverything(store);
  }

  @Test
  void reopeningAnEmptyStoreWithAnotherMasterKeyFails() {
    store.close();
    store = null;
    assertThatThrownBy(() -> JdbcStore.sqlite(dbFile(), MasterKey.random()))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("master key");
    store = JdbcStore.sqlite(dbFile(), key);
    assertThat(store.isReachable()).isTrue();
  }

  @Test
  void signingKeySeedsAreNotStoredInPlaintext() throws IOException {
    byte[] seed = new byte[32];
    new SecureRandom().nextBytes(seed);
    SigningKeyRow k = signingKey(WS_A, "ws_a/01jdq4zk3m0001", 1, T0);
    SigningKeyRow row =
        new SigningKeyRow(
            k.workspaceId(), k.keyId(), seed.clone(), k.publicKey(), k.activeFrom(), null);
    write(tx -> tx.insertSigningKey(row));
    assertThat(read((Tx tx) -> tx.signingKeys(WS_A)).get(0).privateSeed()).containsExactly(seed);
    // While open (the row is in the WAL or the main file) and after close (checkpointed).
    assertSeedAbsentButPublicKeyPresent(seed, row.publicKey());
    write(tx -> tx.updateSigningKey(row.retiredAt(at(60))));
    assertSeedAbsentButPublicKeyPresent(seed, row.publicKey());
    store.close();
    store = null;
    assertSeedAbsentButPublicKeyPresent(seed, row.publicKey());
    store = JdbcStore.sqlite(dbFile(), key);
    assertThat(read((Tx tx) -> tx.signingKeys(WS_A)).get(0).privateSeed()).containsExactly(seed);
  }

  /**
   * Scans the database file and its -wal/-shm companions: the public key (stored in the clear) is
   * found, which shows the scan sees the row, and the seed is not.
   */
  private void assertSeedAbsentButPublicKeyPresent(byte[] seed, byte[] publicKey)
      throws IOException {
    List<Path> files = new ArrayList<>();
    try (Stream<Path> s = Files.list(tempDir)) {
      s.filter(p -> p.getFileName().toString().startsWith("t.db")).forEach(files::add);
    }
    assertThat(files).contains(dbFile());
    boolean publicKeyFound = false;
    for (Path f : files) {
      byte[] bytes = Files.readAllBytes(f);
      assertThat(indexOf(bytes, seed)).as("seed bytes in %s", f.getFileName()).isNegative();
      publicKeyFound |= indexOf(bytes, publicKey) >= 0;
    }
    assertThat(publicKeyFound).as("public key found in %s", files).isTrue();
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  @Test
  void migrationsAreIdempotentAcrossRepeatedOpens() {
    write(tx -> tx.insertWorkspace(new WorkspaceRow(WS_A, "free", T0)));
    for (int i = 0; i < 3; i++) {
      reopen(key);
      assertThat(read((Tx tx) -> tx.workspace(WS_A))).contains(new WorkspaceRow(WS_A, "free", T0));
    }
    int n = 7;
    write(tx -> tx.insertWorkspace(new WorkspaceRow("ws_" + n, "pro", T0)));
    reopen(key);
    assertThat(read((Tx tx) -> tx.workspace("ws_7"))).isPresent();
  }

  @Test
  void createsMissingParentDirectories() {
    Path nested = tempDir.resolve("a/b/c/nested.db");
    try (JdbcStore s = JdbcStore.sqlite(nested, key)) {
      write(s, tx -> tx.insertWorkspace(new WorkspaceRow(WS_A, "free", T0)));
      assertThat(s.read((Tx tx) -> tx.workspace(WS_A))).isPresent();
    }
    assertThat(nested).exists();
  }

  @Test
  void aClosedStoreRefusesWork() {
    store.close();
    assertThat(store.isReachable()).isFalse();
    assertThatThrownBy(() -> store.inTransaction(tx -> tx.workspace(WS_A)))
        .isInstanceOf(StoreException.class);
    assertThatThrownBy(() -> store.read(tx -> tx.workspace(WS_A)))
        .isInstanceOf(StoreException.class);
  }
}
