package dev.agentauth.verifier.cli;

import static dev.agentauth.verifier.cli.CliFixtures.SECOND;
import static dev.agentauth.verifier.cli.CliFixtures.SIGNER;
import static dev.agentauth.verifier.cli.CliFixtures.json;
import static dev.agentauth.verifier.cli.CliFixtures.ndjson;
import static dev.agentauth.verifier.cli.CliFixtures.run;
import static dev.agentauth.verifier.cli.CliFixtures.scope;
import static dev.agentauth.verifier.cli.CliFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.verifier.KeyFingerprint;
import dev.agentauth.verifier.cli.CliFixtures.Run;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code verify --trusted-key-fingerprint}: only pinned keys of the keys document verify. */
class PinningCliTest {

  private static final String K1_PIN = KeyFingerprint.of(SIGNER.publicKey());
  private static final String K2_PIN = KeyFingerprint.of(SECOND.publicKey());

  /** A well-formed fingerprint of no key in the documents used here. */
  private static final String OTHER_PIN = "SHA256:E545QOZLVJFyIIjZoNdBYo_IJuCUddNBp4Cs3jxLgHA";

  @TempDir Path dir;

  private String keys;
  private String receipts;

  @BeforeEach
  void writeFiles() {
    keys = write(dir, "keys.json", CliFixtures.keysDocument(SIGNER, SECOND)).toString();
    receipts =
        write(
                dir,
                "receipts.ndjson",
                ndjson(
                    List.of(
                        scope(SIGNER, "01JK1", "11:00", "allow"),
                        scope(SECOND, "01JK2", "11:01", "allow"))))
            .toString();
  }

  @Test
  void withoutPinsEveryKeyOfTheDocumentVerifies() {
    Run run = run("verify", "--keys", keys, receipts);

    assertThat(run.exitCode()).isZero();
  }

  @Test
  void receiptsOfPinnedKeysVerify() {
    Run run =
        run(
            "verify",
            "--keys",
            keys,
            "--trusted-key-fingerprint",
            K1_PIN,
            "--trusted-key-fingerprint",
            K2_PIN,
            receipts);

    assertThat(run.exitCode()).isZero();
    assertThat(run.outLines()).last().isEqualTo("RESULT  VALID  2 receipts: 2 valid, 0 invalid");
  }

  @Test
  void aReceiptOfAnUnpinnedKeyFailsKeyNotFoundNamingTheKey() {
    Run run = run("verify", "--keys", keys, "--trusted-key-fingerprint", K1_PIN, receipts);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.outLines())
        .containsExactly(
            "VALID   01JK1  (allow email.send)",
            "INVALID 01JK2  KEY_NOT_FOUND: key \"cli/k2\" is in the keys document of workspace"
                + " ws_cli but is not pinned: its fingerprint "
                + K2_PIN
                + " is not one of the trusted key fingerprints",
            "RESULT  INVALID  2 receipts: 1 valid, 1 invalid");
  }

  @Test
  void aKeysDocumentWithNoPinnedKeyIsAnInputErrorListingItsFingerprints() {
    Run run = run("verify", "--keys", keys, "--trusted-key-fingerprint", OTHER_PIN, receipts);

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.out()).isEmpty();
    assertThat(run.err())
        .isEqualTo(
            "agentauth-verify: "
                + keys
                + ": the keys document of workspace ws_cli holds none of the pinned keys ["
                + OTHER_PIN
                + "]; its keys are \"cli/k1\" "
                + K1_PIN
                + ", \"cli/k2\" "
                + K2_PIN
                + System.lineSeparator());
  }

  @Test
  void aMalformedPinIsAUsageErrorBeforeAnythingIsRead() {
    Run run =
        run(
            "verify",
            "--keys",
            dir.resolve("missing.json").toString(),
            "--trusted-key-fingerprint",
            "SHA256:abc+def",
            receipts);

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.out()).isEmpty();
    assertThat(run.err())
        .startsWith(
            "agentauth-verify: --trusted-key-fingerprint: key fingerprint \"SHA256:abc+def\"")
        .contains("'+' at index 3 is outside the base64url alphabet");
    assertThat(run.err().lines()).hasSize(1);
  }

  @Test
  void pinnedVerificationWorksWithKeysFromStandardInput() {
    Run run =
        CliFixtures.run(
            CliFixtures.CLOCK,
            CliFixtures.keysDocument(SIGNER, SECOND),
            "verify",
            "--keys",
            "-",
            "--trusted-key-fingerprint",
            K2_PIN,
            write(dir, "k2.json", json(scope(SECOND, "01JK2", "11:01", "allow"))).toString());

    assertThat(run.exitCode()).isZero();
  }

  @Test
  void keysAndReceiptsCannotBothComeFromStandardInput() {
    Run run = run("verify", "--keys", "-", "-");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("standard input ('-') can be given only once");
  }
}
