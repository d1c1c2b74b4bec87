package dev.agentauth.verifier.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.verifier.cli.CliFixtures.Run;
import dev.agentauth.verifier.log.CheckpointVerifier;
import dev.agentauth.verifier.log.VerifiedCheckpoint;
import dev.agentauth.verifier.log.WitnessKey;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code log witness-keygen} and {@code log witness} against a fake log server. */
class LogWitnessCliTest {

  @TempDir Path dir;

  FakeLogServer log;
  Path keys;
  Path keyFile;
  Path state;
  String vkey;

  @BeforeEach
  void start() throws IOException {
    log = new FakeLogServer().add(0, 3);
    keys = CliFixtures.write(dir, "keys.json", CliFixtures.keysDocument());
    keyFile = dir.resolve("witness.key");
    state = dir.resolve("witness.state");
    Run keygen =
        run("log", "witness-keygen", "--name", "witness.example/w1", "--out", keyFile.toString());
    assertThat(keygen.exitCode()).as(keygen.err()).isZero();
    vkey = keygen.out().strip();
  }

  @AfterEach
  void stop() {
    log.close();
  }

  static Run run(String... args) {
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
                Map.of("AGENTAUTH_API_KEY", FakeLogServer.API_KEY)::get)
            .run(args);
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  Run witness(String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "log",
                "witness",
                "--key",
                keyFile.toString(),
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
  void keygenWritesAnOwnerOnlySkeyAndPrintsItsVkeyAndNeverOverwrites() throws IOException {
    assertThat(WitnessKey.parseVkey(vkey).name()).isEqualTo("witness.example/w1");
    assertThat(Files.readString(keyFile)).startsWith("PRIVATE+KEY+witness.example/w1+");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile)))
        .isEqualTo("rw-------");
    Run again = run("log", "witness-keygen", "--name", "w2", "--out", keyFile.toString());
    assertThat(again.exitCode()).isEqualTo(2);
    assertThat(again.err()).contains("already exists");
    assertThat(
            run("log", "witness-keygen", "--name", "a b", "--out", dir.resolve("x").toString())
                .err())
        .contains("--name");
  }

  @Test
  void theWitnessPostsACosignatureTheServerAndAuditorsCanVerify() throws IOException {
    Run r = witness();
    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("TRUST ON FIRST USE", "COSIGNED size 3", "RESULT VALID");
    assertThat(log.posted).hasSize(1);
    CheckpointVerifier verifier =
        CheckpointVerifier.create(
            CliFixtures.parse(CliFixtures.keysDocument()), List.of(WitnessKey.parseVkey(vkey)));
    VerifiedCheckpoint posted = verifier.verify(log.posted.get(0));
    assertThat(posted.checkpoint()).isEqualTo(log.checkpoint());
    assertThat(posted.witnesses()).containsExactly("witness.example/w1");
    assertThat(posted.cosignatures().get(0).timestamp())
        .isEqualTo(CliFixtures.NOW.getEpochSecond());
    assertThat(Files.readString(state)).startsWith(log.checkpoint().body());

    log.add(3, 2);
    Run next = witness();
    assertThat(next.exitCode()).as(next.out() + next.err()).isZero();
    assertThat(next.out()).contains("CONSISTENT: the log grew from 3 to 5");
    assertThat(log.posted).hasSize(2);
  }

  @Test
  void printOnlyPrintsTheLineAndPostsNothing() {
    Run r = witness("--print-only");
    assertThat(r.exitCode()).isZero();
    assertThat(r.out()).contains("\u2014 witness.example/w1 ");
    assertThat(log.posted).isEmpty();
  }

  @Test
  void theWitnessRefusesToCosignAForkedLog() throws IOException {
    assertThat(witness().exitCode()).isZero();
    ObjectNode changed = CliFixtures.scope("01JLOGCHANGED", "11:00", "deny");
    log.receipts.set(0, changed);
    log.add(3, 1);
    Run r = witness();
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.out()).contains("LOG FORKED");
    assertThat(log.posted).hasSize(1);
  }

  @Test
  void aKeyFileReadableByOthersIsRefused() throws IOException {
    Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-r-----"));
    Run r = witness();
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("chmod 600");
    assertThat(log.requests).isEmpty();
  }
}
