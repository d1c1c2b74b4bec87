package dev.agentauth.server;

import static dev.agentauth.server.CheckFixtures.authorizeScopes;
import static dev.agentauth.server.CheckFixtures.check;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.store.jdbc.JdbcStore;
import dev.agentauth.server.store.jdbc.MasterKey;
import dev.agentauth.verifier.cli.InProcessVerifyCli;
import dev.agentauth.verifier.cli.InProcessVerifyCli.Run;
import dev.agentauth.verifier.log.Checkpoint;
import dev.agentauth.verifier.log.CheckpointVerifier;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The verifier CLI ({@code agentauth-verify log audit|witness|witness-keygen}, {@code verify --log
 * --complete --chain}) against the real server on a SQLite file, and tampering with that file
 * between two runs of the server: a deleted, changed or reordered receipt, a truncated log and a
 * rewritten (forked) history are each detected with exit status 1 and a message naming the problem.
 */
class ReceiptLogAuditIT {
  /** A fixed public URL keeps the log's origin the same across restarts on new ports. */
  private static final String PUBLIC_URL = "https://agentauth.test";

  private static final Clock CLI_CLOCK =
      Clock.fixed(ServerHarness.START.plus(Duration.ofHours(1)), ZoneOffset.UTC);

  @TempDir Path dir;
  private final MasterKey masterKey = MasterKey.random();
  private String apiKey;
  private Path keysFile;
  private Path apiKeyFile;

  private ServerHarness start(Path db) {
    ServerHarness h =
        ServerHarness.start(
            AgentAuthServer.builder().store(JdbcStore.sqlite(db, masterKey)).publicUrl(PUBLIC_URL));
    if (apiKey == null) {
      apiKey = h.apiKey();
    } else {
      h.useApiKey(apiKey);
    }
    return h;
  }

  private Run cli(String... args) {
    return InProcessVerifyCli.run(CLI_CLOCK, Map.of(), args);
  }

  private Run audit(ServerHarness h, Path state, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "log",
                "audit",
                "--state",
                state.toString(),
                "--keys",
                keysFile.toString(),
                "--log-url",
                h.server.baseUrl(),
                "--api-key-file",
                apiKeyFile.toString()));
    args.addAll(List.of(more));
    return cli(args.toArray(new String[0]));
  }

  private Run verifyComplete(ServerHarness h, Path receipts) {
    return cli(
        "verify",
        "--keys",
        keysFile.toString(),
        "--chain",
        "--log",
        h.server.baseUrl(),
        "--complete",
        "--api-key-file",
        apiKeyFile.toString(),
        receipts.toString());
  }

  /** Makes {@code n} checks on {@code auth}, waiting for each signature. */
  private static void checks(ServerHarness h, String auth, int n) {
    for (int i = 0; i < n; i++) {
      check(h, auth, "calendar.read").waitForSigning().result();
    }
  }

  /** Polls until the newest checkpoint covers at least {@code size} leaves; returns it. */
  private static Checkpoint integrated(ServerHarness h, long size) {
    String ws = h.workspaceId();
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    String last = null;
    while (true) {
      h.server.logIntegrator().integrateAll();
      Resp r = h.send("GET", "/v1/workspaces/" + ws + "/log/checkpoint", null, null, Map.of());
      last = r.status() + " " + r.raw();
      if (r.status() == 200) {
        Checkpoint c =
            CheckpointVerifier.create(h.keys(ws), List.of()).verify(r.raw()).checkpoint();
        if (c.treeSize() >= size) {
          return c;
        }
      }
      assertThat(System.nanoTime())
          .as("a checkpoint of %d leaves within 15 s; last: %s", size, last)
          .isLessThan(deadline);
      Thread.onSpinWait();
    }
  }

  /** Writes the authorization's chain, receipts exactly as served, as NDJSON. */
  private Path exportChain(ServerHarness h, String auth, String name) throws IOException {
    StringBuilder ndjson = new StringBuilder();
    for (String id : h.chainIds(auth)) {
      ndjson.append(h.signedReceipt(id).toString()).append('\n');
    }
    return Files.writeString(dir.resolve(name), ndjson.toString());
  }

  private void writeSecrets(ServerHarness h) throws IOException {
    keysFile = Files.writeString(dir.resolve("keys.json"), h.keys(h.workspaceId()).toString());
    apiKeyFile = dir.resolve("api.key");
    Files.writeString(apiKeyFile, apiKey);
    Files.setPosixFilePermissions(apiKeyFile, PosixFilePermissions.fromString("rw-------"));
  }

  private static void sql(Path db, String... statements) {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
        Statement s = c.createStatement()) {
      for (String statement : statements) {
        s.executeUpdate(statement);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A copy of the (closed) database, to tamper with. */
  private Path copy(Path db, String name) {
    try {
      Path to = dir.resolve(name);
      for (String suffix : List.of("", "-wal", "-shm")) {
        Path from = Path.of(db + suffix);
        if (Files.exists(from)) {
          Files.copy(from, Path.of(to + suffix), StandardCopyOption.REPLACE_EXISTING);
        }
      }
      return to;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void theCliAuditsWitnessesAndVerifiesTheRealLog() throws IOException {
    Path db = dir.resolve("agentauth.db");
    try (ServerHarness h = start(db)) {
      writeSecrets(h);
      String auth = authorizeScopes(h, "calendar.read");
      checks(h, auth, 4);
      // The authorization made one receipt, each check one.
      integrated(h, 5);
      Path state = dir.resolve("audit.state");
      Run first = audit(h, state);
      assertThat(first.exitCode()).as(first.all()).isZero();
      assertThat(first.out()).contains("TRUST ON FIRST USE", "RESULT VALID");

      checks(h, auth, 3);
      integrated(h, 8);
      Run second = audit(h, state);
      assertThat(second.exitCode()).as(second.all()).isZero();
      assertThat(second.out()).contains("CONSISTENT: the log grew from 5 to 8");

      Run chain = verifyComplete(h, exportChain(h, auth, "chain.ndjson"));
      assertThat(chain.exitCode()).as(chain.all()).isZero();
      assertThat(chain.out()).contains("LOG RESULT VALID: 8 in the log, 0 not, 0 missing");

      // A witness: key made by the CLI, configured on the server, cosigning through the CLI.
      Path witnessKey = dir.resolve("witness.key");
      Run keygen =
          cli("log", "witness-keygen", "--name", "witness.test/w1", "--out", witnessKey.toString());
      assertThat(keygen.exitCode()).as(keygen.all()).isZero();
      String vkey = keygen.out().strip();
      assertThat(vkey).startsWith("witness.test/w1+");
      Resp put = h.put("/v1/log/witnesses", h.json("{\"witnesses\":[\"" + vkey + "\"]}"));
      assertThat(put.status()).as(put.raw()).isEqualTo(200);
      Run witness =
          cli(
              "log",
              "witness",
              "--key",
              witnessKey.toString(),
              "--state",
              dir.resolve("witness.state").toString(),
              "--keys",
              keysFile.toString(),
              "--log-url",
              h.server.baseUrl(),
              "--api-key-file",
              apiKeyFile.toString());
      assertThat(witness.exitCode()).as(witness.all()).isZero();
      assertThat(witness.out()).contains("COSIGNED size 8");
      Resp served =
          h.send(
              "GET", "/v1/workspaces/" + h.workspaceId() + "/log/checkpoint", null, null, Map.of());
      assertThat(served.raw()).contains("\u2014 witness.test/w1 ");

      Run quorum = audit(h, state, "--witness-key", vkey, "--witness-quorum", "1");
      assertThat(quorum.exitCode()).as(quorum.all()).isZero();
      assertThat(quorum.out()).contains("cosigned by witness.test/w1", "RESULT VALID");
    }
  }

  @Test
  void tamperingWithTheDatabaseIsDetected() throws IOException {
    Path db = dir.resolve("agentauth.db");
    String auth;
    Path chainBefore;
    Path state = dir.resolve("audit.state");
    List<JsonNode> entries = new ArrayList<>();
    try (ServerHarness h = start(db)) {
      writeSecrets(h);
      auth = authorizeScopes(h, "calendar.read");
      checks(h, auth, 3);
      integrated(h, 4);
      checks(h, auth, 4);
      integrated(h, 8);
      Run first = audit(h, state);
      assertThat(first.exitCode()).as(first.all()).isZero();
      chainBefore = exportChain(h, auth, "chain.ndjson");
      h.get("/v1/log/entries?start=0&limit=100").body().path("entries").forEach(entries::add);
      assertThat(entries).hasSize(8);
    }
    String ws = "ws_local";
    String third = entries.get(3).path("receipt").path("receipt_id").asText();
    String fifth = entries.get(5).path("receipt").path("receipt_id").asText();
    Path stateCopy = dir.resolve("audit.state.orig");
    Files.copy(state, stateCopy);

    // (a) A receipt deleted from the middle of the chain.
    Path deleted = copy(db, "deleted.db");
    sql(deleted, "DELETE FROM receipts WHERE receipt_id = '" + third + "'");
    try (ServerHarness h = start(deleted)) {
      // The server serves the entries around the hole; the CLI reports the log invalid, naming
      // the index that is not there.
      Run r = verifyComplete(h, chainBefore);
      assertThat(r.exitCode()).as(r.all()).isEqualTo(1);
      assertThat(r.all()).contains("LOG RESULT INVALID").contains("LOG ENTRY MISSING");
      assertThat(r.all()).contains("log_index 3 (the server sent log_index 4");
      List<Long> served = new ArrayList<>();
      h.get("/v1/log/entries?start=0&limit=100")
          .body()
          .path("entries")
          .forEach(e -> served.add(e.path("log_index").asLong()));
      assertThat(served).containsExactly(0L, 1L, 2L, 4L, 5L, 6L, 7L);
    }

    // (b) A stored receipt's content changed.
    Path changed = copy(db, "changed.db");
    sql(
        changed,
        "UPDATE receipts SET payload_json = replace(payload_json, '\"calendar.read\"',"
            + " '\"calendar.write\"') WHERE receipt_id = '"
            + fifth
            + "'");
    try (ServerHarness h = start(changed)) {
      Run r = verifyComplete(h, chainBefore);
      assertThat(r.exitCode()).as(r.all()).isEqualTo(1);
      assertThat(r.out()).contains("do not hash to the checkpoint's root", "LOG RESULT INVALID");
    }

    // (c) Two receipts' places in the log swapped.
    Path swapped = copy(db, "swapped.db");
    sql(
        swapped,
        "UPDATE receipts SET log_index = -1 WHERE receipt_id = '" + third + "'",
        "UPDATE receipts SET log_index = 3 WHERE receipt_id = '" + fifth + "'",
        "UPDATE receipts SET log_index = 5 WHERE receipt_id = '" + third + "'");
    try (ServerHarness h = start(swapped)) {
      Run r = verifyComplete(h, chainBefore);
      assertThat(r.exitCode()).as(r.all()).isEqualTo(1);
      assertThat(r.out()).contains("do not hash to the checkpoint's root", "LOG RESULT INVALID");
    }

    // (d) The log truncated back to its first checkpoint: the last receipts, their leaves and
    // nodes, the later checkpoints deleted and the size reset.
    Path truncated = copy(db, "truncated.db");
    sql(
        truncated,
        "DELETE FROM receipts WHERE log_index >= 4",
        "DELETE FROM log_nodes WHERE (idx + 1) * (1 << level) > 4",
        "DELETE FROM log_checkpoints WHERE tree_size > 4",
        "DELETE FROM log_cosignatures WHERE tree_size > 4",
        "UPDATE log_heads SET tree_size = 4");
    try (ServerHarness h = start(truncated)) {
      Run r = audit(h, state);
      assertThat(r.exitCode()).as(r.all()).isEqualTo(1);
      assertThat(r.out()).contains("LOG SHRANK");
      assertThat(Files.readString(state)).isEqualTo(Files.readString(stateCopy));
    }

    // A fork: a receipt changed and the log rebuilt from scratch: a checkpoint of the same size,
    // signed by the workspace's key, with another root.
    Path forked = copy(db, "forked.db");
    sql(
        forked,
        "UPDATE receipts SET payload_json = replace(payload_json, '\"calendar.read\"',"
            + " '\"calendar.write\"') WHERE receipt_id = '"
            + fifth
            + "'",
        "UPDATE receipts SET log_index = NULL",
        "DELETE FROM log_nodes",
        "DELETE FROM log_checkpoints",
        "DELETE FROM log_cosignatures",
        "DELETE FROM log_heads");
    try (ServerHarness h = start(forked)) {
      integrated(h, 8);
      Run r = audit(h, state);
      assertThat(r.exitCode()).as(r.all()).isEqualTo(1);
      assertThat(r.out()).contains("LOG FORKED");
      assertThat(Files.readString(state)).isEqualTo(Files.readString(stateCopy));
      Path evidence = Path.of(state + ".rejected");
      assertThat(evidence).exists();
      assertThat(Files.readString(evidence, StandardCharsets.UTF_8))
          .contains("agentauth.test/agentauth/" + ws + "\n8\n");
    }
  }
}
