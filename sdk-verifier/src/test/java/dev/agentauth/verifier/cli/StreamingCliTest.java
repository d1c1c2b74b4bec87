package dev.agentauth.verifier.cli;

import static dev.agentauth.verifier.cli.CliFixtures.json;
import static dev.agentauth.verifier.cli.CliFixtures.run;
import static dev.agentauth.verifier.cli.CliFixtures.scope;
import static dev.agentauth.verifier.cli.CliFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.verifier.cli.CliFixtures.Run;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NDJSON read a window at a time ({@link VerifyCommand#WINDOW_RECEIPTS} receipts): the report and
 * the errors are those of an input read whole.
 */
class StreamingCliTest {

  /** More receipts than two windows hold. */
  private static final int RECEIPTS = 2 * VerifyCommand.WINDOW_RECEIPTS + 100;

  @TempDir Path dir;

  private String keys;

  @BeforeEach
  void writeKeys() {
    keys = write(dir, "keys.json", CliFixtures.keysDocument()).toString();
  }

  /** {@link #RECEIPTS} lines: a signed receipt every 100th line, an empty object otherwise. */
  private static String manyLines() {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < RECEIPTS; i++) {
      sb.append(i % 100 == 0 ? json(scope(String.format("01JW%05d", i), "10:15", "allow")) : "{}");
      sb.append('\n');
    }
    return sb.toString();
  }

  @Test
  void aMalformedLineInALaterWindowStopsTheRunBeforeAnyResult() {
    String text = manyLines() + "{\"version\":\n" + "{}\n";
    String file = write(dir, "late.ndjson", text).toString();

    Run fromFile = run("verify", "--keys", keys, "--threads", "3", file);
    Run fromStdin = run(CliFixtures.CLOCK, text, "verify", "--keys", keys, "-");

    assertThat(fromFile.exitCode()).isEqualTo(2);
    assertThat(fromFile.out()).isEmpty();
    assertThat(fromFile.err())
        .startsWith(
            "agentauth-verify: "
                + file
                + " line "
                + (RECEIPTS + 1)
                + " is not valid JSON (NDJSON input)");
    assertThat(fromStdin.exitCode()).isEqualTo(2);
    assertThat(fromStdin.out()).isEmpty();
    assertThat(fromStdin.err())
        .startsWith("agentauth-verify: <stdin> line " + (RECEIPTS + 1) + " is not valid JSON");
  }

  @Test
  void reportsAcrossWindowsAreTheSameOnEveryThreadCountAndInInputOrder() {
    String file = write(dir, "many.ndjson", manyLines()).toString();

    Run one = run("verify", "--keys", keys, "--chain", "--threads", "1", file);
    Run three = run("verify", "--keys", keys, "--chain", "--threads", "3", file);
    Run json = run("verify", "--keys", keys, "--json", "--threads", "1", file);
    Run jsonThree = run("verify", "--keys", keys, "--json", "--threads", "3", file);

    assertThat(three.out()).isEqualTo(one.out());
    assertThat(jsonThree.out()).isEqualTo(json.out());
    assertThat(one.outLines().get(0)).isEqualTo("VALID   01JW00000  (allow email.send)");
    assertThat(one.outLines().get(1))
        .isEqualTo("INVALID (" + file + ":2)  VERSION: " + versionMessage());
    // In the third window.
    assertThat(one.outLines().get(4100)).isEqualTo("VALID   01JW04100  (allow email.send)");
    assertThat(CliFixtures.parse(json.out()).at("/receipts/" + (RECEIPTS - 1) + "/source").asText())
        .isEqualTo(file + ":" + RECEIPTS);
    assertThat(one.outLines().get(one.outLines().size() - 1))
        .isEqualTo(
            "RESULT  INVALID  "
                + RECEIPTS
                + " receipts: "
                + (RECEIPTS / 100 + 1)
                + " valid, "
                + (RECEIPTS - RECEIPTS / 100 - 1)
                + " invalid; 1 chain: 0 valid, 1 invalid");
  }

  private String versionMessage() {
    Run single = run(CliFixtures.CLOCK, "{}", "verify", "--keys", keys, "-");
    String line = single.outLines().get(0);
    return line.substring(line.indexOf("VERSION: ") + "VERSION: ".length());
  }

  @Test
  void linesEndingInCarriageReturnsAreNumberedAsBefore() {
    String a = json(scope("01JCR1", "10:15", "allow"));
    String b = json(scope("01JCR2", "10:16", "allow"));
    String file = write(dir, "crlf.ndjson", "\r\n" + a + "\r\n\r" + "{}\r" + b).toString();

    Run run = run("verify", "--keys", keys, "--json", file);

    assertThat(CliFixtures.parse(run.out()).findValuesAsText("source"))
        .containsExactly(file + ":2", file + ":4", file + ":5");
  }

  @Test
  void oneReceiptBetweenBlankLinesIsTheWholeFileNotNdjson() {
    String file =
        write(dir, "one.json", "\n\n" + json(scope("01JONE", "10:15", "allow")) + "\n\n\n")
            .toString();
    String pretty =
        write(
                dir,
                "pretty.json",
                CliFixtures.MAPPER.valueToTree(scope("01JP", "10:15", "allow")).toPrettyString())
            .toString();

    Run one = run("verify", "--keys", keys, "--json", file);
    Run two = run("verify", "--keys", keys, "--json", pretty);

    assertThat(CliFixtures.parse(one.out()).at("/receipts/0/source").asText()).isEqualTo(file);
    assertThat(one.exitCode()).isZero();
    assertThat(CliFixtures.parse(two.out()).at("/receipts/0/source").asText()).isEqualTo(pretty);
    assertThat(two.exitCode()).isZero();
  }

  @Test
  void aReportThatCannotBeWrittenExitsTwoWithOneLine() {
    String file = write(dir, "one.json", json(scope("01JONE", "10:15", "allow"))).toString();
    OutputStream closed =
        new OutputStream() {
          @Override
          public void write(int b) throws IOException {
            throw new IOException("Broken pipe");
          }
        };
    ByteArrayOutputStream err = new ByteArrayOutputStream();

    int code =
        new VerifyCli(CliFixtures.CLOCK, new ByteArrayInputStream(new byte[0]), closed, err)
            .run("verify", "--keys", keys, file);

    assertThat(code).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            "agentauth-verify: cannot write the report to standard output"
                + System.lineSeparator());
  }
}
