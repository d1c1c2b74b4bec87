package dev.agentauth.verifier.cli;

import static dev.agentauth.verifier.cli.CliFixtures.VECTOR_CLOCK;
import static dev.agentauth.verifier.cli.CliFixtures.json;
import static dev.agentauth.verifier.cli.CliFixtures.ndjson;
import static dev.agentauth.verifier.cli.CliFixtures.run;
import static dev.agentauth.verifier.cli.CliFixtures.scope;
import static dev.agentauth.verifier.cli.CliFixtures.vectorReceipts;
import static dev.agentauth.verifier.cli.CliFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.verifier.cli.CliFixtures.Run;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VerifyCliTest {

  @TempDir Path dir;

  private String keys;
  private String vectorKeys;

  @BeforeEach
  void writeKeys() {
    keys = write(dir, "keys.json", CliFixtures.keysDocument()).toString();
    vectorKeys =
        write(dir, "vector-keys.json", json(CliFixtures.vectors().get("public_keys"))).toString();
  }

  private String file(String name, String content) {
    return write(dir, name, content).toString();
  }

  /** No usage error, input error or internal error may print a stack trace. */
  private static void assertNoStackTrace(Run run) {
    assertThat(run.err()).doesNotContain("\tat ", "Exception in thread", "Caused by");
  }

  private static void assertInputError(Run run, String... messageParts) {
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.out()).isEmpty();
    assertThat(run.err()).startsWith("agentauth-verify: ").contains(messageParts);
    assertThat(run.err().lines()).hasSize(1);
    assertNoStackTrace(run);
  }

  // --- input shapes ---------------------------------------------------------------------------

  @Test
  void aSingleValidReceiptExitsZero() {
    String receipt = file("one.json", json(scope("01JCLISCOPE1", "11:00", "allow")));

    Run run = run("verify", "--keys", keys, receipt);

    assertThat(run.exitCode()).isZero();
    assertThat(run.outLines())
        .containsExactly(
            "VALID   01JCLISCOPE1  (allow email.send)",
            "RESULT  VALID  1 receipt: 1 valid, 0 invalid");
    assertThat(run.err()).isEmpty();
  }

  @Test
  void aPrettyPrintedSingleReceiptIsOneReceipt() throws IOException {
    ObjectNode receipt = scope("01JCLISCOPE1", "11:00", "allow");
    String file =
        file(
            "pretty.json",
            CliFixtures.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(receipt));

    Run run = run("verify", "--keys", keys, file);

    assertThat(run.exitCode()).isZero();
    assertThat(run.outLines()).last().isEqualTo("RESULT  VALID  1 receipt: 1 valid, 0 invalid");
  }

  @Test
  void everyShouldVerifyVectorInAJsonArrayIsValid() {
    List<JsonNode> receipts = vectorReceipts("should_verify");
    String file = file("vectors.json", json(CliFixtures.MAPPER.valueToTree(receipts)));

    Run run = CliFixtures.run(VECTOR_CLOCK, "", "verify", "--keys", vectorKeys, file);

    assertThat(run.exitCode()).isZero();
    assertThat(run.outLines())
        .hasSize(17)
        .last()
        .isEqualTo("RESULT  VALID  16 receipts: 16 valid, 0 invalid");
    assertThat(run.outLines().subList(0, 16)).allMatch(l -> l.startsWith("VALID   rcp_"));
  }

  @Test
  void everyShouldRejectVectorAsNdjsonIsInvalid() {
    List<JsonNode> receipts = vectorReceipts("should_reject");
    String file = file("rejects.ndjson", ndjson(receipts));

    Run run = CliFixtures.run(VECTOR_CLOCK, "", "verify", "--keys", vectorKeys, file);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.outLines())
        .hasSize(24)
        .last()
        .isEqualTo("RESULT  INVALID  23 receipts: 0 valid, 23 invalid");
    assertThat(run.outLines().subList(0, 23)).allMatch(l -> l.startsWith("INVALID "));
    assertThat(run.out())
        .contains(
            "INVALID rcp_01HXZMINIMAL0000000000000  SIGNATURE: signature verification failed");
  }

  @Test
  void ndjsonIgnoresBlankLinesAndReportsEachReceipt() {
    ObjectNode tampered = scope("01JCLITAMPERED", "11:10", "allow");
    tampered.put("user_id", "user_attacker");
    String content =
        "\n"
            + json(scope("01JCLISCOPE1", "11:00", "allow"))
            + "\n\n   \n"
            + json(tampered)
            + "\r\n"
            + json(scope("01JCLISCOPE3", "11:20", "deny"))
            + "\n\n";
    String file = file("mixed.ndjson", content);

    Run run = run("verify", "--keys", keys, file);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.outLines())
        .containsExactly(
            "VALID   01JCLISCOPE1  (allow email.send)",
            "INVALID 01JCLITAMPERED  SIGNATURE: signature verification failed: the Ed25519"
                + " signature does not match the canonical payload under key \"cli/k1\"",
            "VALID   01JCLISCOPE3  (deny email.send)",
            "RESULT  INVALID  3 receipts: 2 valid, 1 invalid");
  }

  @Test
  void stdinIsReadForADash() {
    String stdin = ndjson(List.of(scope("01JA", "11:00", "allow"), scope("01JB", "11:01", "deny")));

    Run run = CliFixtures.run(CliFixtures.CLOCK, stdin, "verify", "--keys", keys, "-");

    assertThat(run.exitCode()).isZero();
    assertThat(run.outLines()).last().isEqualTo("RESULT  VALID  2 receipts: 2 valid, 0 invalid");
  }

  @Test
  void filesAndStdinCombine() {
    String a = file("a.json", json(scope("01JA", "11:00", "allow")));
    String stdin = json(CliFixtures.MAPPER.createArrayNode().add(scope("01JB", "11:01", "allow")));

    Run run = CliFixtures.run(CliFixtures.CLOCK, stdin, "verify", "--keys", keys, a, "-");

    assertThat(run.exitCode()).isZero();
    assertThat(run.outLines())
        .containsExactly(
            "VALID   01JA  (allow email.send)",
            "VALID   01JB  (allow email.send)",
            "RESULT  VALID  2 receipts: 2 valid, 0 invalid");
  }

  /** The service's {@code GET /v1/receipts/{id}} answer for a signed receipt. */
  private static String envelope(String receiptText) {
    return "{\"status\": \"signed\", \"receipt\": " + receiptText + "}";
  }

  @Test
  void signedReceiptEnvelopesFromTheServiceAreVerifiedAsTheirReceipts() {
    String one = file("answer.json", envelope(json(scope("01JA", "11:00", "allow"))));
    String array =
        file(
            "answers.json",
            "["
                + envelope(json(scope("01JB", "11:01", "deny")))
                + ","
                + json(scope("01JC", "11:02", "allow"))
                + "]");
    String lines =
        file(
            "answers.ndjson",
            json(scope("01JD", "11:03", "allow"))
                + "\n"
                + envelope(json(scope("01JE", "11:04", "allow")))
                + "\n");

    Run run = run("verify", "--keys", keys, one, array, lines);

    assertThat(run.exitCode()).isZero();
    assertThat(run.outLines())
        .containsExactly(
            "VALID   01JA  (allow email.send)",
            "VALID   01JB  (deny email.send)",
            "VALID   01JC  (allow email.send)",
            "VALID   01JD  (allow email.send)",
            "VALID   01JE  (allow email.send)",
            "RESULT  VALID  5 receipts: 5 valid, 0 invalid");
  }

  @Test
  void aReceiptInsideAnEnvelopeIsCheckedAsStrictlyAsABareOne() {
    ObjectNode tampered = scope("01JT", "11:00", "allow");
    tampered.put("user_id", "user_attacker");
    String valid = json(scope("01JD", "11:01", "allow"));
    // The same receipt with one member repeated: the verifier must see the envelope's exact text.
    String duplicated = valid.replaceFirst("\\{", "{\"scope\":\"email.send\",");
    String file = file("bad.ndjson", envelope(json(tampered)) + "\n" + envelope(duplicated) + "\n");

    Run run = run("verify", "--keys", keys, file);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.outLines())
        .hasSize(3)
        .last()
        .isEqualTo("RESULT  INVALID  2 receipts: 0 valid, 2 invalid");
    assertThat(run.outLines().get(0))
        .startsWith("INVALID 01JT  SIGNATURE: signature verification failed");
    assertThat(run.outLines().get(1)).startsWith("INVALID (").contains("Duplicate field 'scope'");
  }

  @Test
  void onlyAnExactSignedEnvelopeIsUnwrapped() {
    String receipt = json(scope("01JA", "11:00", "allow"));
    String file =
        file(
            "not-envelopes.ndjson",
            String.join(
                "\n",
                // still being signed: nothing to verify yet
                "{\"status\":\"pending\",\"receipt_id\":\"01JP\",\"ready_at_estimate\":"
                    + "\"2026-06-01T11:00:00.050Z\",\"url\":\"http://x/v1/receipts/01JP\"}",
                "{\"status\":\"pending\",\"receipt\":" + receipt + "}",
                "{\"status\":\"signed\",\"receipt\":" + receipt + ",\"extra\":1}",
                "{\"status\":\"signed\",\"receipt\":" + receipt + ",\"receipt\":" + receipt + "}",
                "{\"status\":\"signed\"}"));

    Run run = run("verify", "--keys", keys, file);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.outLines()).last().isEqualTo("RESULT  INVALID  5 receipts: 0 valid, 5 invalid");
    String pending =
        "PARSE: a pending receipt (status \"pending\"): it is not signed yet, so there is"
            + " nothing to verify; fetch it again (GET /v1/receipts/";
    String notSigned =
        "PARSE: not a signed receipt: a signed receipt's envelope is exactly"
            + " {\"status\":\"signed\",\"receipt\":{...}}";
    assertThat(run.outLines().get(0))
        .isEqualTo("INVALID 01JP  " + pending + "01JP) once it is signed, and verify that");
    assertThat(run.outLines().get(1)).startsWith("INVALID (" + file + ":2)  " + pending + "{id})");
    assertThat(run.outLines().subList(2, 5))
        .allMatch(l -> l.startsWith("INVALID (") && l.contains(notSigned));
    assertThat(run.out()).doesNotContain("VERSION");
  }

  @Test
  void anEnvelopeOfAnotherStatusIsNeitherAReceiptNorASignedOne() {
    String file =
        file("odd.ndjson", "{\"status\":\"deleted\",\"receipt_id\":\"01JX\"}\n{\"status\":7}\n");

    Run run = run("verify", "--keys", keys, file);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.outLines())
        .containsExactly(
            "INVALID 01JX  PARSE: not a receipt: an envelope with status \"deleted\", neither a"
                + " receipt nor a signed receipt {\"status\":\"signed\",\"receipt\":{...}}"
                + " (a receipt not yet signed has status \"pending\")",
            "INVALID ("
                + file
                + ":2)  PARSE: not a receipt: an envelope with a status that is not a string"
                + " (VALUE_NUMBER_INT), neither a receipt nor a signed receipt"
                + " {\"status\":\"signed\",\"receipt\":{...}} (a receipt not yet signed has"
                + " status \"pending\")",
            "RESULT  INVALID  2 receipts: 0 valid, 2 invalid");
  }

  @Test
  void aReceiptWithAStatusMemberIsStillVerifiedAsAReceipt() {
    ObjectNode receipt = scope("01JS", "11:00", "allow");
    receipt.put("status", "pending");
    String file = file("status.json", json(receipt));

    Run run = run("verify", "--keys", keys, file);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.outLines().get(0)).startsWith("INVALID 01JS  SCHEMA: ");
  }

  @Test
  void aPendingReceiptInJsonOutputNamesItsIdAndStep() {
    String file =
        file(
            "pending.json",
            "{\"status\":\"pending\",\"receipt_id\":\"01JP\",\"ready_at_estimate\":"
                + "\"2026-06-01T11:00:00.050Z\",\"url\":\"http://x/v1/receipts/01JP\"}");

    Run run = run("verify", "--json", "--keys", keys, file);

    assertThat(run.exitCode()).isEqualTo(1);
    JsonNode doc = CliFixtures.parse(run.out());
    assertThat(doc.at("/receipts/0/receipt_id").asText()).isEqualTo("01JP");
    assertThat(doc.at("/receipts/0/step").asText()).isEqualTo("PARSE");
    assertThat(doc.at("/receipts/0/message").asText()).startsWith("a pending receipt");
    assertThat(doc.get("verdict").asText()).isEqualTo("invalid");
  }

  @Test
  void arrayElementsThatAreNotObjectsAreInvalidReceipts() {
    String receipt = json(scope("01JA", "11:00", "allow"));
    String file =
        file("array.json", "[\n  " + receipt + ",\n  42, \"x\", null, [], {\"a\": 1, \"a\": 2}\n]");

    Run run = run("verify", "--keys", keys, file);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.outLines())
        .containsExactly(
            "VALID   01JA  (allow email.send)",
            "INVALID (" + file + "[1])  PARSE: receipt must be a JSON object, found number",
            "INVALID (" + file + "[2])  PARSE: receipt must be a JSON object, found string",
            "INVALID (" + file + "[3])  PARSE: receipt must be a JSON object, found null",
            "INVALID (" + file + "[4])  PARSE: receipt must be a JSON object, found array",
            "INVALID ("
                + file
                + "[5])  PARSE: receipt is not valid JSON: Duplicate field 'a'"
                + " (line 1, column 13)",
            "RESULT  INVALID  6 receipts: 1 valid, 5 invalid");
  }

  @Test
  void arrayElementsAreVerifiedAsTheExactTextGiven() {
    // Braces and brackets inside strings must not confuse the element boundaries.
    ObjectNode receipt = scope("01J}]{[\"", "11:00", "allow");
    String file = file("tricky.json", "[" + json(receipt) + "," + json(receipt) + "]");

    Run run = run("verify", "--keys", keys, file);

    assertThat(run.exitCode()).isZero();
    assertThat(run.outLines()).first().isEqualTo("VALID   01J}]{[\"  (allow email.send)");
  }

  @Test
  void aLargeArrayIsSplitAtTheRightPlaces() {
    // Far beyond Jackson's input buffer, so element offsets span several buffer refills.
    var array = CliFixtures.MAPPER.createArrayNode();
    for (int i = 0; i < 300; i++) {
      array.add(scope(String.format("01JBULK%05d", i), "11:00", i % 2 == 0 ? "allow" : "deny"));
    }
    String file = file("bulk.json", array.toPrettyString());

    Run run = run("verify", "--keys", keys, file);

    assertThat(run.exitCode()).isZero();
    assertThat(run.outLines())
        .hasSize(301)
        .last()
        .isEqualTo("RESULT  VALID  300 receipts: 300 valid, 0 invalid");
    assertThat(run.outLines().get(299)).isEqualTo("VALID   01JBULK00299  (deny email.send)");
  }

  @Test
  void aNdjsonLineThatIsNotAnObjectIsAnInvalidReceipt() {
    String file = file("x.ndjson", json(scope("01JA", "11:00", "allow")) + "\n[1,2]\n");

    Run run = run("verify", "--keys", keys, file);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.outLines())
        .contains("INVALID (" + file + ":2)  PARSE: receipt must be a JSON object, found array");
  }

  @Test
  void aFutureReceiptFailsAgainstTheInjectedClock() {
    String file = file("future.json", json(scope("01JFUTURE", "12:06", "allow")));

    Run run = run("verify", "--keys", keys, file);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).contains("INVALID 01JFUTURE  TIMESTAMP: issued_at");
  }

  @Test
  void aReceiptOfAnotherKeyIsInvalid() {
    ObjectNode unsigned = scope("01JIMPOSTOR", "11:00", "allow");
    unsigned.remove("signature");
    String file = file("impostor.json", json(CliFixtures.IMPOSTOR.sign(unsigned)));

    Run run = run("verify", "--keys", keys, file);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).startsWith("INVALID 01JIMPOSTOR  SIGNATURE: ");
  }

  @Test
  void controlCharactersFromReceiptsAreEscapedInText() {
    String file = file("evil.json", json(scope("01J\nVALID   fake\u202e", "11:00", "deny")));

    Run run = run("verify", "--keys", keys, file);

    assertThat(run.outLines())
        .containsExactly(
            "VALID   01J\\u000aVALID   fake\\u202e  (deny email.send)",
            "RESULT  VALID  1 receipt: 1 valid, 0 invalid");
  }

  // --- JSON output ----------------------------------------------------------------------------

  @Test
  void jsonOutputHasOneObjectPerReceiptAndASummary() {
    ObjectNode tampered = scope("01JCLITAMPERED", "11:10", "allow");
    tampered.put("reason", "changed");
    String file =
        file("mixed.ndjson", ndjson(List.of(scope("01JCLISCOPE1", "11:00", "allow"), tampered)));

    Run run = run("verify", "--json", "--keys", keys, file);

    assertThat(run.exitCode()).isEqualTo(1);
    JsonNode doc = CliFixtures.parse(run.out());
    assertThat(doc.has("chains")).isFalse();
    JsonNode receipts = doc.get("receipts");
    assertThat(receipts).hasSize(2);
    JsonNode valid = receipts.get(0);
    assertThat(valid.get("receipt_id").asText()).isEqualTo("01JCLISCOPE1");
    assertThat(valid.get("valid").asBoolean()).isTrue();
    assertThat(valid.get("step").isNull()).isTrue();
    assertThat(valid.get("message").asText()).isEqualTo("verified with key cli/k1");
    assertThat(valid.get("decision").asText()).isEqualTo("allow");
    assertThat(valid.get("scope").asText()).isEqualTo("email.send");
    assertThat(valid.get("source").asText()).isEqualTo(file + ":1");
    JsonNode invalid = receipts.get(1);
    assertThat(invalid.get("receipt_id").asText()).isEqualTo("01JCLITAMPERED");
    assertThat(invalid.get("valid").asBoolean()).isFalse();
    assertThat(invalid.get("step").asText()).isEqualTo("SIGNATURE");
    assertThat(invalid.get("message").asText()).contains("signature verification failed");
    assertThat(invalid.has("decision")).isFalse();
    JsonNode summary = doc.get("summary");
    assertThat(summary.get("receipts").asInt()).isEqualTo(2);
    assertThat(summary.get("valid").asInt()).isEqualTo(1);
    assertThat(summary.get("invalid").asInt()).isEqualTo(1);
    assertThat(summary.get("ok").asBoolean()).isFalse();
  }

  /** An exit-2 run with --json: the line on standard error, and the JSON error document. */
  private static void assertJsonError(Run run, String... messageParts) {
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).startsWith("agentauth-verify: ").contains(messageParts);
    assertNoStackTrace(run);
    JsonNode doc = CliFixtures.parse(run.out());
    assertThat(doc.get("verdict").asText()).isEqualTo("error");
    assertThat(doc.get("exit_code").asInt()).isEqualTo(2);
    assertThat(doc.get("error").asText()).contains(messageParts);
    assertThat(doc.has("receipts")).isFalse();
  }

  @Test
  void jsonOutputOfAnInputErrorIsAJsonErrorDocument() {
    String receipt = file("one.json", json(scope("01JA", "11:00", "allow")));
    String pin = "SHA256:" + "A".repeat(43);

    assertJsonError(
        run("verify", "--json", "--keys", keys, "--trusted-key-fingerprint", pin, receipt),
        "holds none of the pinned keys");
    assertJsonError(
        run(
            "verify",
            "--json",
            "--keys-url",
            "http://agentauth.example.com",
            "--workspace",
            "ws_cli",
            receipt),
        "plain http to a host that is not loopback");
    assertJsonError(
        run("verify", "--json", "--keys", keys, dir.resolve("missing.json").toString()),
        "no such file");
    assertJsonError(
        run("verify", "--json", "--keys", keys, "--threads", "0", receipt), "--threads");
    // A usage error picocli reports: the JSON document names it too.
    assertJsonError(
        run("verify", "--json", "--keys", keys, "--no-such-option", receipt), "--no-such-option");
  }

  @Test
  void withoutJsonAnInputErrorPrintsNothingOnStandardOutput() {
    String receipt = file("one.json", json(scope("01JA", "11:00", "allow")));

    assertInputError(
        run(
            "verify",
            "--keys",
            keys,
            "--trusted-key-fingerprint",
            "SHA256:" + "A".repeat(43),
            receipt),
        "holds none of the pinned keys");
  }

  @Test
  void jsonOutputIsAsciiAndKeepsNonAsciiValues() {
    ObjectNode receipt = scope("01J\u00e9\ud83d\ude00", "11:00", "allow");
    String file = file("one.json", json(receipt));

    Run run = run("verify", "--json", "--keys", keys, file);

    assertThat(run.exitCode()).isZero();
    assertThat(run.out().chars().allMatch(c -> c < 0x80)).isTrue();
    assertThat(CliFixtures.parse(run.out()).at("/receipts/0/receipt_id").asText())
        .isEqualTo("01J\u00e9\ud83d\ude00");
  }

  @Test
  void jsonOutputOfAnEventReceiptNamesTheEvent() {
    String file = file("create.json", json(CliFixtures.create("10:00")));

    Run run = run("verify", "--json", "--keys", keys, file);

    JsonNode receipt = CliFixtures.parse(run.out()).at("/receipts/0");
    assertThat(receipt.get("event").asText()).isEqualTo("authorization.create");
    assertThat(receipt.has("scope")).isFalse();
    assertThat(receipt.get("decision").asText()).isEqualTo("authorization_granted");
  }

  // --- input errors: exit 2 -------------------------------------------------------------------

  @Test
  void malformedJsonIsAnInputError() {
    String file = file("bad.json", "{\"version\": \"1.0\",\n  \"receipt_id\": ");

    assertInputError(run("verify", "--keys", keys, file), file, "is not valid JSON", "line 2");
  }

  @Test
  void aMalformedNdjsonLineIsAnInputErrorNamingTheLine() {
    String content =
        json(scope("01JA", "11:00", "allow"))
            + "\n"
            + json(scope("01JB", "11:01", "allow"))
            + "\n{\"version\":\n";
    String file = file("bad.ndjson", content);

    assertInputError(run("verify", "--keys", keys, file), file + " line 3 is not valid JSON");
  }

  @Test
  void aTruncatedArrayIsAnInputError() {
    String file = file("bad-array.json", "[" + json(scope("01JA", "11:00", "allow")) + ",");

    assertInputError(run("verify", "--keys", keys, file), file, "is not valid JSON");
  }

  @Test
  void aFileHoldingAScalarIsAnInputError() {
    String file = file("scalar.json", "42\n");

    assertInputError(run("verify", "--keys", keys, file), "found a single JSON number");
  }

  @Test
  void anEmptyFileIsAnInputError() {
    String file = file("empty.json", " \n\n");

    assertInputError(run("verify", "--keys", keys, file), file + " is empty");
  }

  @Test
  void noReceiptsAtAllIsAnInputError() {
    String file = file("none.json", "[]");

    assertInputError(run("verify", "--keys", keys, file), "no receipts found in " + file);
  }

  @Test
  void aMissingFileIsAnInputError() {
    String missing = dir.resolve("missing.json").toString();

    assertInputError(
        run("verify", "--keys", keys, missing),
        "cannot read receipt file " + missing + ": no such file");
  }

  @Test
  void aDirectoryIsAnUnreadableFile() {
    assertInputError(
        run("verify", "--keys", keys, dir.toString()),
        "cannot read receipt file " + dir + ": it is a directory");
  }

  @Test
  void aFileThatIsNotUtf8IsAnInputError() throws IOException {
    Path file = dir.resolve("latin1.json");
    Files.write(file, new byte[] {'{', '"', (byte) 0xE9, '"', ':', '1', '}'});

    assertInputError(run("verify", "--keys", keys, file.toString()), "is not UTF-8 text");
  }

  @Test
  void anInputErrorAnywhereMeansNoResultsAreReported() {
    String good = file("good.json", json(scope("01JA", "11:00", "allow")));
    String bad = file("bad.json", "{");

    assertInputError(run("verify", "--keys", keys, good, bad), bad);
  }

  // --- keys document --------------------------------------------------------------------------

  @Test
  void aMalformedKeysDocumentIsAnInputError() {
    String badKeys = file("bad-keys.json", "{\"workspace_id\": \"ws_cli\", \"keys\": []}");
    String receipt = file("one.json", json(scope("01JA", "11:00", "allow")));

    assertInputError(
        run("verify", "--keys", badKeys, receipt), badKeys + ": keys document", "lists no keys");
  }

  @Test
  void aKeysDocumentThatIsNotJsonIsAnInputError() {
    String badKeys = file("bad-keys.json", "not json");
    String receipt = file("one.json", json(scope("01JA", "11:00", "allow")));

    assertInputError(
        run("verify", "--keys", badKeys, receipt), badKeys, "keys document is not valid JSON");
  }

  @Test
  void aKeyThatIsNotACurvePointIsAnInputError() {
    String badKeys =
        file(
            "bad-keys.json",
            CliFixtures.keysDocument()
                .replaceAll("\"public_key\":\"[^\"]+\"", "\"public_key\":\"AAAA\""));
    String receipt = file("one.json", json(scope("01JA", "11:00", "allow")));

    assertInputError(run("verify", "--keys", badKeys, receipt), "keys[0].public_key");
  }

  @Test
  void aMissingKeysFileIsAnInputError() {
    String receipt = file("one.json", json(scope("01JA", "11:00", "allow")));
    String missing = dir.resolve("nokeys.json").toString();

    assertInputError(
        run("verify", "--keys", missing, receipt), "cannot read keys document " + missing);
  }

  @Test
  void receiptsOfAnotherWorkspaceAreInvalidNotAnInputError() {
    String receipt = file("one.json", json(scope("01JA", "11:00", "allow")));

    Run run = CliFixtures.run(VECTOR_CLOCK, "", "verify", "--keys", vectorKeys, receipt);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).contains("INVALID 01JA  WORKSPACE: workspace_id \"ws_cli\"");
  }

  // --- usage ----------------------------------------------------------------------------------

  @Test
  void usageErrorsExitTwoWithoutAStackTrace() {
    String receipt = file("one.json", json(scope("01JA", "11:00", "allow")));
    List<String[]> usages =
        List.of(
            new String[] {},
            new String[] {"verify"},
            new String[] {"verify", receipt},
            new String[] {"verify", "--keys", keys},
            new String[] {"verify", "--keys", keys, "--bogus", receipt},
            new String[] {"verify", "--keys", keys, "--keys-url", "http://x", "--workspace", "w"},
            new String[] {"verify", "--keys-url", "http://127.0.0.1:9", receipt},
            new String[] {"verify", "--workspace", "ws", receipt},
            new String[] {"frobnicate"});
    for (String[] args : usages) {
      Run run = run(args);
      assertThat(run.exitCode()).as(String.join(" ", args)).isEqualTo(2);
      assertThat(run.out()).as(String.join(" ", args)).isEmpty();
      assertThat(run.err()).as(String.join(" ", args)).startsWith("agentauth-verify: ");
      assertNoStackTrace(run);
    }
  }

  @Test
  void keysFileAndKeysUrlAreMutuallyExclusive() {
    String receipt = file("one.json", json(scope("01JA", "11:00", "allow")));

    Run run =
        run(
            "verify",
            "--keys",
            keys,
            "--keys-url",
            "http://127.0.0.1:9",
            "--workspace",
            "w",
            receipt);

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("mutually exclusive");
  }

  @Test
  void stdinCanBeGivenOnlyOnce() {
    assertInputError(run("verify", "--keys", keys, "-", "-"), "only once");
  }

  @Test
  void helpAndVersionExitZero() {
    Run help = run("verify", "--help");
    assertThat(help.exitCode()).isZero();
    assertThat(help.out()).contains("Usage: agentauth-verify verify", "--keys-url", "Exit codes");

    Run version = run("--version");
    assertThat(version.exitCode()).isZero();
    assertThat(version.out()).startsWith("agentauth-verify ");
  }
}
