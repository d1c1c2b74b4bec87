package dev.agentauth.verifier.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.verifier.cli.CliFixtures.Run;
import dev.agentauth.verifier.log.CosignatureSigner;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code verify --log}: inclusion of each receipt under a verified checkpoint, and with {@code
 * --chain --complete} the whole log fetched, its root recomputed and missing receipts reported.
 */
class LogVerifyCliTest {

  @TempDir Path dir;

  FakeLogServer log;
  Path keys;
  Map<String, String> env = Map.of("AGENTAUTH_API_KEY", FakeLogServer.API_KEY);

  @BeforeEach
  void start() throws IOException {
    log = new FakeLogServer();
    log.receipts.add(CliFixtures.create("10:00"));
    log.add(1, 5);
    keys = CliFixtures.write(dir, "keys.json", CliFixtures.keysDocument());
  }

  @AfterEach
  void stop() {
    log.close();
  }

  Run verify(List<ObjectNode> receipts, String... more) {
    Path file = CliFixtures.write(dir, "receipts.ndjson", CliFixtures.ndjson(receipts));
    List<String> args =
        new ArrayList<>(List.of("verify", "--keys", keys.toString(), "--log", log.baseUrl));
    args.addAll(Arrays.asList(more));
    args.add(file.toString());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        new VerifyCli(
                CliFixtures.CLOCK,
                new ByteArrayInputStream(new byte[0]),
                out,
                err,
                new KeysFetcher(),
                3,
                env::get)
            .run(args.toArray(new String[0]));
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void everyReceiptIsProvenInTheLog() {
    Run r = verify(log.receipts);
    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("LOGGED  01JLOG00000000000000000003  log_index 3");
    assertThat(r.out()).contains("LOG RESULT VALID: 6 in the log, 0 not (checkpoint size 6)");
    assertThat(log.requests.stream().filter(q -> q.contains("/proof/inclusion"))).hasSize(6);
  }

  @Test
  void aReceiptNotInTheLogIsReported() {
    List<ObjectNode> given = new ArrayList<>(log.receipts);
    given.add(CliFixtures.scope("01JLOGNEVERLOGGED", "11:30", "allow"));
    Run r = verify(given);
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.out()).contains("NOT IN LOG 01JLOGNEVERLOGGED", "LOG RESULT INVALID");
  }

  @Test
  void aChangedReceiptIsNotInTheLog() {
    List<ObjectNode> given = new ArrayList<>(log.receipts);
    // Same id, other content, validly signed: its leaf is not the logged one.
    given.set(2, CliFixtures.scope("01JLOG00000000000000000002", "11:00", "deny"));
    Run r = verify(given);
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.out()).contains("NOT IN LOG 01JLOG00000000000000000002: inclusion proof");
  }

  @Test
  void completeChainsPassWhenNothingIsMissing() {
    Run r = verify(log.receipts, "--chain", "--complete");
    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("LOG RESULT VALID: 6 in the log, 0 not, 0 missing");
    assertThat(log.requests).contains("GET /v1/log/entries?start=0&limit=1000");
  }

  @Test
  void aReceiptLeftOutOfTheChainsIsReportedMissingWithItsLogIndex() {
    List<ObjectNode> given = new ArrayList<>(log.receipts);
    given.remove(3);
    Run r = verify(given, "--chain", "--complete");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.out())
        .contains(
            "MISSING 01JLOG00000000000000000003  log_index 3 (authorization "
                + CliFixtures.AUTHORIZATION)
        .contains("LOG RESULT INVALID: 5 in the log, 0 not, 1 missing");
  }

  @Test
  void entriesThatDoNotHashToTheCheckpointAreDetected() {
    List<ObjectNode> swapped = new ArrayList<>(log.receipts);
    Collections.swap(swapped, 2, 3);
    log.servedEntries = swapped;
    Run r = verify(log.receipts, "--chain", "--complete");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.out()).contains("do not hash to the checkpoint's root");

    List<ObjectNode> changed = new ArrayList<>(log.receipts);
    changed.set(4, CliFixtures.scope("01JLOG00000000000000000004", "11:00", "deny"));
    log.servedEntries = changed;
    Run altered = verify(log.receipts, "--chain", "--complete");
    assertThat(altered.exitCode()).isEqualTo(1);
    assertThat(altered.out()).contains("do not hash to the checkpoint's root");

    List<ObjectNode> removed = new ArrayList<>(log.receipts);
    removed.remove(2);
    log.servedEntries = removed;
    Run gone = verify(log.receipts, "--chain", "--complete");
    assertThat(gone.exitCode()).isEqualTo(1);
    assertThat(gone.out()).contains("entries end at 5, before the checkpoint's size 6");
  }

  @Test
  void theCheckpointMustCarryTheWitnessQuorum() {
    CosignatureSigner w1 = CosignatureSigner.ed25519("w1.example", CliFixtures.seed(21));
    Run r = verify(log.receipts, "--witness-key", w1.witnessKey().vkey(), "--witness-quorum", "1");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.out()).contains("LOG RESULT INVALID", "fewer than --witness-quorum 1");
    log.cosigners.add(w1);
    Run ok = verify(log.receipts, "--witness-key", w1.witnessKey().vkey(), "--witness-quorum", "1");
    assertThat(ok.exitCode()).as(ok.out() + ok.err()).isZero();
    assertThat(ok.out()).contains("cosigned by w1.example");
  }

  @Test
  void optionMistakesAreUsageErrors() {
    env = Map.of();
    assertThat(verify(log.receipts).err()).contains("--log needs an API key");
    env = Map.of("AGENTAUTH_API_KEY", FakeLogServer.API_KEY);
    assertThat(verify(log.receipts, "--complete").err()).contains("--complete needs --chain");
    assertThat(verify(log.receipts, "--json").err()).contains("--log does not support --json");
    Run noLog = CliFixtures.run("verify", "--keys", keys.toString(), "--complete", keys.toString());
    assertThat(noLog.exitCode()).isEqualTo(2);
    assertThat(noLog.err()).contains("need --log");
  }
}
