package dev.agentauth.verifier.cli;

import static dev.agentauth.verifier.cli.CliFixtures.json;
import static dev.agentauth.verifier.cli.CliFixtures.ndjson;
import static dev.agentauth.verifier.cli.CliFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the shaded {@code agentauth-verify.jar} as a child process, as an auditor would: checks that
 * the merged jar starts (Bouncy Castle's signature files are stripped), that picocli works in it,
 * and the exit codes. Failsafe runs it after {@code package}; the pom passes the jar's path. The
 * receipts' issued_at are in the past, so the real clock is fine.
 */
class VerifyCliJarIT {

  private static Path jar;

  @TempDir Path dir;

  @BeforeAll
  static void findJar() {
    String property = System.getProperty("agentauth.verify.jar", "target/agentauth-verify.jar");
    jar = Path.of(property);
    assertThat(jar).as("the shaded CLI jar (run mvn package first)").isRegularFile();
  }

  private record Result(int exitCode, String out, String err) {}

  private Result java(String stdin, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-jar");
    command.add(jar.toString());
    command.addAll(List.of(args));
    Path out = dir.resolve("stdout.txt");
    Path err = dir.resolve("stderr.txt");
    Path in = write(dir, "stdin.txt", stdin);
    Process process =
        new ProcessBuilder(command)
            .redirectInput(in.toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the CLI finished").isTrue();
    return new Result(
        process.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  @Test
  void verifiesReceiptsAndChainsFromTheShadedJar() throws Exception {
    String keys = write(dir, "keys.json", CliFixtures.keysDocument()).toString();
    String receipts =
        write(
                dir,
                "chain.ndjson",
                ndjson(
                    List.of(
                        CliFixtures.create("10:00"),
                        CliFixtures.scope("01JCLISCOPE1", "10:15", "allow"))))
            .toString();

    Result result = java("", "verify", "--chain", "--keys", keys, receipts);

    assertThat(result.err()).isEmpty();
    assertThat(result.exitCode()).isZero();
    assertThat(result.out())
        .contains(
            "VALID   01JCLISCOPE1  (allow email.send)",
            "RESULT  VALID  2 receipts: 2 valid, 0 invalid; 1 chain: 1 valid, 0 invalid");
  }

  @Test
  void reportsAnInvalidReceiptReadFromStdinWithExitOne() throws Exception {
    String keys = write(dir, "keys.json", CliFixtures.keysDocument()).toString();
    var tampered = CliFixtures.scope("01JCLITAMPERED", "10:15", "allow");
    tampered.put("resource", "mailbox:other");

    Result result = java(json(tampered), "verify", "--json", "--keys", keys, "-");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(CliFixtures.parse(result.out()).at("/receipts/0/step").asText())
        .isEqualTo("SIGNATURE");
  }

  @Test
  void inputErrorsExitTwoWithOneLineAndNoStackTrace() throws Exception {
    String keys = write(dir, "keys.json", CliFixtures.keysDocument()).toString();
    String bad = write(dir, "bad.json", "{\"version\": ").toString();

    Result result = java("", "verify", "--keys", keys, bad);

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.out()).isEmpty();
    assertThat(result.err().lines()).hasSize(1);
    assertThat(result.err()).startsWith("agentauth-verify: ").doesNotContain("\tat ");
  }

  @Test
  void pinsTheFingerprintItPrintsAndVerifiesOnTwoThreads() throws Exception {
    String keys = write(dir, "keys.json", CliFixtures.keysDocument()).toString();
    String receipts =
        write(
                dir,
                "receipts.ndjson",
                ndjson(
                    List.of(
                        CliFixtures.scope("01JA", "10:15", "allow"),
                        CliFixtures.scope("01JB", "10:16", "deny"))))
            .toString();

    Result fingerprint = java("", "keys", "fingerprint", keys);
    String pin = fingerprint.out().strip().split("  ")[1];
    Result verified =
        java(
            "",
            "verify",
            "--keys",
            keys,
            "--trusted-key-fingerprint",
            pin,
            "--threads",
            "2",
            receipts);

    assertThat(fingerprint.exitCode()).isZero();
    assertThat(fingerprint.out()).startsWith("cli/k1  SHA256:");
    assertThat(verified.err()).isEmpty();
    assertThat(verified.exitCode()).isZero();
    assertThat(verified.out())
        .endsWith("RESULT  VALID  2 receipts: 2 valid, 0 invalid" + System.lineSeparator());
  }

  @Test
  void printsItsVersionFromTheManifest() throws Exception {
    Result result = java("", "--version");

    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).startsWith("agentauth-verify ").doesNotContain("development build");
  }
}
