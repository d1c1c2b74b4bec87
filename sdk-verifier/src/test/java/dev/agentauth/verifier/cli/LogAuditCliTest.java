package dev.agentauth.verifier.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.verifier.cli.CliFixtures.Run;
import dev.agentauth.verifier.log.CosignatureSigner;
import dev.agentauth.verifier.log.NoteSigner;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
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
 * {@code log audit} against a fake log server: trust on first use, growth proven consistent, and
 * every tampering the state file makes visible (removal, change, swap, truncation, forks, a foreign
 * log key, missing cosignatures).
 */
class LogAuditCliTest {

  @TempDir Path dir;

  FakeLogServer log;
  Path keys;
  Path state;
  Map<String, String> env = Map.of("AGENTAUTH_API_KEY", FakeLogServer.API_KEY);

  static final CosignatureSigner W1 = CosignatureSigner.ed25519("w1.example", CliFixtures.seed(21));
  static final CosignatureSigner W2 = CosignatureSigner.ed25519("w2.example", CliFixtures.seed(22));

  @BeforeEach
  void start() throws IOException {
    log = new FakeLogServer().add(0, 5);
    keys = CliFixtures.write(dir, "keys.json", CliFixtures.keysDocument());
    state = dir.resolve("audit.state");
  }

  @AfterEach
  void stop() {
    log.close();
  }

  Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        new VerifyCli(
                CliFixtures.CLOCK,
                new ByteArrayInputStream(new byte[0]),
                out,
                err,
                new KeysFetcher(),
                2,
                env::get)
            .run(args);
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  Run audit(String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "log",
                "audit",
                "--state",
                state.toString(),
                "--keys",
                keys.toString(),
                "--log-url",
                log.baseUrl));
    args.addAll(Arrays.asList(more));
    return run(args.toArray(new String[0]));
  }

  @Test
  void firstRunTrustsOnFirstUseAndStoresTheCheckpointOwnerOnly() throws IOException {
    Run r = audit();
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out()).contains("TRUST ON FIRST USE", "size 5", "RESULT VALID");
    assertThat(Files.readString(state)).startsWith(log.checkpoint().body());
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(state)))
        .isEqualTo("rw-------");
  }

  @Test
  void aGrownLogIsProvenConsistentAndAnUnchangedOneConfirmed() throws IOException {
    assertThat(audit().exitCode()).isZero();
    log.add(5, 4);
    Run grown = audit();
    assertThat(grown.exitCode()).as(grown.err()).isZero();
    assertThat(grown.out()).contains("CONSISTENT: the log grew from 5 to 9");
    assertThat(log.requests).contains("GET /v1/log/proof/consistency?from=5&to=9");
    assertThat(Files.readString(state)).startsWith(log.checkpoint().body());
    Run same = audit();
    assertThat(same.exitCode()).isZero();
    assertThat(same.out()).contains("UNCHANGED");
  }

  @Test
  void withoutAnApiKeyAGrownLogIsAnInputErrorAndTheStateStays() throws IOException {
    assertThat(audit().exitCode()).isZero();
    String before = Files.readString(state);
    log.add(5, 1);
    env = Map.of();
    Run r = audit();
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("needs an API key", "AGENTAUTH_API_KEY");
    assertThat(Files.readString(state)).isEqualTo(before);
    // An unchanged log needs none.
    log.receipts.remove(5);
    assertThat(audit().exitCode()).isZero();
  }

  @Test
  void anApiKeyFileReadableByOthersIsRefused() throws IOException {
    Path key = CliFixtures.write(dir, "api.key", FakeLogServer.API_KEY + "\n");
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
    env = Map.of();
    Run r = audit("--api-key-file", key.toString());
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("chmod 600");
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
    assertThat(audit("--api-key-file", key.toString()).exitCode()).isZero();
    log.add(5, 2);
    assertThat(audit("--api-key-file", key.toString()).out()).contains("CONSISTENT");
  }

  private void assertTamperDetected(String message) throws IOException {
    String before = Files.readString(state);
    Run r = audit();
    assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(1);
    assertThat(r.out()).contains("RESULT INVALID", message);
    assertThat(Files.readString(state)).isEqualTo(before);
    Path evidence = dir.resolve("audit.state.rejected");
    assertThat(Files.readString(evidence)).startsWith(log.checkpoint().body());
  }

  @Test
  void aReceiptRemovedFromTheMiddleIsDetected() throws IOException {
    assertThat(audit().exitCode()).isZero();
    log.receipts.remove(2);
    log.add(5, 3);
    assertTamperDetected("LOG FORKED");
  }

  @Test
  void aChangedReceiptIsDetected() throws IOException {
    assertThat(audit().exitCode()).isZero();
    log.receipts.set(1, CliFixtures.scope("01JLOGCHANGED", "11:00", "deny"));
    assertTamperDetected("LOG FORKED: the newest checkpoint (size 5");
    log.add(5, 1);
    assertTamperDetected("is not consistent");
  }

  @Test
  void twoSwappedReceiptsAreDetected() throws IOException {
    assertThat(audit().exitCode()).isZero();
    Collections.swap(log.receipts, 1, 2);
    log.add(5, 2);
    assertTamperDetected("LOG FORKED");
  }

  @Test
  void aTruncatedLogIsDetected() throws IOException {
    assertThat(audit().exitCode()).isZero();
    log.receipts.remove(4);
    assertTamperDetected("LOG SHRANK");
  }

  @Test
  void aForkAtTheSameSizeOrABiggerSizeIsDetected() throws IOException {
    assertThat(audit().exitCode()).isZero();
    List<com.fasterxml.jackson.databind.node.ObjectNode> honest = new ArrayList<>(log.receipts);
    log.receipts.clear();
    log.add(100, 5);
    assertTamperDetected("has the size of the stored checkpoint");
    log.add(200, 3);
    assertTamperDetected("is not consistent with the stored checkpoint");
    log.receipts.clear();
    log.receipts.addAll(honest);
    assertThat(audit().exitCode()).isZero();
  }

  @Test
  void aCheckpointSignedByAKeyNotInTheKeysDocumentIsRefused() {
    log.logSigner = NoteSigner.ed25519(log.origin, CliFixtures.seed(8));
    Run r = audit();
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.out()).contains("not signed by any key of workspace ws_cli");
    assertThat(state).doesNotExist();
  }

  @Test
  void aQuorumOfKnownWitnessesIsRequiredUnknownOnesDoNotCount() {
    String w1 = "--witness-key=" + W1.witnessKey().vkey();
    String w2 = "--witness-key=" + W2.witnessKey().vkey();
    CosignatureSigner stranger = CosignatureSigner.ed25519("w3.example", CliFixtures.seed(23));
    log.cosigners.add(W1);
    log.cosigners.add(stranger);
    Run r = audit(w1, w2, "--witness-quorum", "2");
    assertThat(r.exitCode()).as(r.err()).isEqualTo(1);
    assertThat(r.out())
        .contains("cosigned by 1 of the given witnesses [w1.example]", "w3.example+");
    assertThat(log.requests).contains("GET /v1/workspaces/ws_cli/log/checkpoint?cosigned=2");
    log.cosigners.add(W2);
    Run ok = audit(w1, w2, "--witness-quorum", "2");
    assertThat(ok.exitCode()).as(ok.out() + ok.err()).isZero();
    assertThat(ok.out()).contains("cosigned by w1.example, w2.example");
  }

  @Test
  void aForgedCosignatureByAKnownWitnessIsRefused() {
    CosignatureSigner forger = CosignatureSigner.ed25519("w1.example", CliFixtures.seed(29));
    log.cosigners.add(forger);
    Run r = audit("--witness-key=" + W1.witnessKey().vkey(), "--witness-quorum", "1");
    assertThat(r.exitCode()).isEqualTo(1);
  }

  @Test
  void badOptionsAreUsageErrors() {
    assertThat(audit("--witness-quorum", "1").err()).contains("--witness-quorum must be between 0");
    assertThat(audit("--witness-key", "nope").err()).contains("--witness-key:");
    assertThat(
            run(
                    "log",
                    "audit",
                    "--state",
                    state.toString(),
                    "--keys",
                    keys.toString(),
                    "--log-url",
                    "http://example.com")
                .err())
        .contains("plain http to a host that is not loopback");
    log.receipts.clear();
    Run empty = audit();
    assertThat(empty.exitCode()).isEqualTo(2);
    assertThat(empty.err()).contains("404", "the log is empty");
  }
}
