package dev.agentauth.verifier.cli;

import static dev.agentauth.verifier.cli.CliFixtures.SECOND;
import static dev.agentauth.verifier.cli.CliFixtures.SIGNER;
import static dev.agentauth.verifier.cli.CliFixtures.json;
import static dev.agentauth.verifier.cli.CliFixtures.run;
import static dev.agentauth.verifier.cli.CliFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.verifier.cli.CliFixtures.Run;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code keys fingerprint}: one line per key, checked against independently computed digests. */
class KeysFingerprintCliTest {

  /** The public receipt-format vectors' key, fingerprinted with Python's hashlib. */
  private static final String VECTOR_KEY_FINGERPRINT =
      "SHA256:E545QOZLVJFyIIjZoNdBYo_IJuCUddNBp4Cs3jxLgHA";

  @TempDir Path dir;

  /** SHA-256 of the base64url {@code public_key} member's bytes, computed here. */
  private static String expected(String publicKeyBase64Url) throws NoSuchAlgorithmException {
    byte[] raw = Base64.getUrlDecoder().decode(publicKeyBase64Url);
    byte[] digest = MessageDigest.getInstance("SHA-256").digest(raw);
    return "SHA256:" + Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
  }

  @Test
  void printsOneLinePerKeyInDocumentOrder() throws NoSuchAlgorithmException {
    String keys = write(dir, "keys.json", CliFixtures.keysDocument(SECOND, SIGNER)).toString();

    Run run = run("keys", "fingerprint", keys);

    assertThat(run.exitCode()).isZero();
    assertThat(run.err()).isEmpty();
    assertThat(run.outLines())
        .containsExactly(
            "cli/k2  " + expected(SECOND.publicKeyBase64Url()),
            "cli/k1  " + expected(SIGNER.publicKeyBase64Url()));
  }

  @Test
  void theVectorKeyHasItsKnownFingerprint() {
    String keys =
        write(dir, "vector-keys.json", json(CliFixtures.vectors().get("public_keys"))).toString();

    Run run = run("keys", "fingerprint", keys);

    assertThat(run.outLines()).containsExactly("test-key/v1  " + VECTOR_KEY_FINGERPRINT);
  }

  @Test
  void readsStandardInputForADash() throws NoSuchAlgorithmException {
    Run run =
        CliFixtures.run(CliFixtures.CLOCK, CliFixtures.keysDocument(), "keys", "fingerprint", "-");

    assertThat(run.exitCode()).isZero();
    assertThat(run.outLines()).containsExactly("cli/k1  " + expected(SIGNER.publicKeyBase64Url()));
  }

  @Test
  void jsonOutputNamesTheWorkspaceAndEachKey() throws NoSuchAlgorithmException {
    String keys = write(dir, "keys.json", CliFixtures.keysDocument(SIGNER, SECOND)).toString();

    Run run = run("keys", "fingerprint", "--json", keys);

    assertThat(run.exitCode()).isZero();
    JsonNode doc = CliFixtures.parse(run.out());
    assertThat(doc.get("workspace_id").asText()).isEqualTo("ws_cli");
    assertThat(doc.at("/keys/0/key_id").asText()).isEqualTo("cli/k1");
    assertThat(doc.at("/keys/0/fingerprint").asText())
        .isEqualTo(expected(SIGNER.publicKeyBase64Url()));
    assertThat(doc.at("/keys/1/key_id").asText()).isEqualTo("cli/k2");
    assertThat(doc.at("/keys/1/fingerprint").asText())
        .isEqualTo(expected(SECOND.publicKeyBase64Url()));
  }

  @Test
  void printedFingerprintsPinTheKeysForVerify() {
    String keys = write(dir, "keys.json", CliFixtures.keysDocument()).toString();
    String pin = run("keys", "fingerprint", keys).outLines().get(0).split("  ")[1];
    String receipt =
        write(dir, "one.json", json(CliFixtures.scope("01JA", "11:00", "allow"))).toString();

    Run run = run("verify", "--keys", keys, "--trusted-key-fingerprint", pin, receipt);

    assertThat(run.exitCode()).isZero();
  }

  @Test
  void aMalformedKeysDocumentIsAnInputError() {
    String keys = write(dir, "keys.json", "{\"workspace_id\":\"ws\",\"keys\":[]}").toString();

    Run run = run("keys", "fingerprint", keys);

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.out()).isEmpty();
    assertThat(run.err())
        .isEqualTo(
            "agentauth-verify: "
                + keys
                + ": keys document for workspace ws lists no keys: nothing"
                + " could verify"
                + System.lineSeparator());
  }

  @Test
  void aFileOrAKeysUrlIsRequiredButNotBoth() {
    Run neither = run("keys", "fingerprint");
    Run both =
        run(
            "keys",
            "fingerprint",
            "--keys-url",
            "https://keys.example.com",
            "--workspace",
            "ws",
            "keys.json");

    assertThat(neither.exitCode()).isEqualTo(2);
    assertThat(neither.err()).contains("give either a keys document file");
    assertThat(both.exitCode()).isEqualTo(2);
    assertThat(both.err()).contains("give either a keys document file");
  }

  @Test
  void keysWithoutASubcommandIsAUsageError() {
    Run run = run("keys");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("missing command");
  }
}
