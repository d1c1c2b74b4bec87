package dev.agentauth.verifier.cli;

import static dev.agentauth.verifier.cli.CliFixtures.SIGNER;
import static dev.agentauth.verifier.cli.CliFixtures.json;
import static dev.agentauth.verifier.cli.CliFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedWriter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
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
 * The shaded jar in a child JVM whose heap is smaller than its input: NDJSON is verified a window
 * at a time, so a file twice the heap verifies with the report an unconstrained run prints; an
 * input that must be read whole and cannot fit ends with exit 2 and one line, never a stack trace.
 *
 * <p>The receipts carry a 16 KiB context so that the files are large while the receipts, and the
 * time their signatures take, stay few.
 */
class LargeInputJarIT {

  /** The child's heap. */
  private static final String HEAP = "-Xmx32m";

  /** About twice the child's heap. */
  private static final long FILE_BYTES = 64L << 20;

  private static Path jar;

  @TempDir Path dir;

  @BeforeAll
  static void findJar() {
    jar = Path.of(System.getProperty("agentauth.verify.jar", "target/agentauth-verify.jar"));
    assertThat(jar).as("the shaded CLI jar (run mvn package first)").isRegularFile();
  }

  private record Result(int exitCode, String out, String err) {}

  private Result java(String heap, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add(heap);
    command.add("-jar");
    command.add(jar.toString());
    command.addAll(List.of(args));
    Path out = dir.resolve("stdout.txt");
    Path err = dir.resolve("stderr.txt");
    Process process =
        new ProcessBuilder(command)
            .redirectInput(ProcessBuilder.Redirect.from(write(dir, "stdin.txt", "").toFile()))
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    assertThat(process.waitFor(5, TimeUnit.MINUTES)).as("the CLI finished").isTrue();
    return new Result(
        process.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  /** A valid allow, a valid deny, and a tampered allow, each with a 16 KiB context. */
  private static List<String> largeReceipts() {
    List<String> receipts = new ArrayList<>();
    for (String decision : List.of("allow", "deny", "tampered")) {
      ObjectNode r =
          CliFixtures.scope(
              "01JLARGE" + decision.toUpperCase(java.util.Locale.ROOT), "10:15", "allow");
      if (decision.equals("deny")) {
        r.put("decision", "deny");
      }
      ((ObjectNode) r.get("context")).put("notes", "n".repeat(16 * 1024));
      r = SIGNER.sign(r);
      if (decision.equals("tampered")) {
        r.put("resource", "mailbox:other");
      }
      receipts.add(json(r));
    }
    return receipts;
  }

  /** Writes the receipts in turn, one per line or as one JSON array, until about {@code bytes}. */
  private Path largeFile(String name, boolean array, long bytes) throws IOException {
    List<String> receipts = largeReceipts();
    Path file = dir.resolve(name);
    try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      w.write(array ? "[\n" : "");
      long written = 0;
      for (int i = 0; written < bytes; i++) {
        String r = receipts.get(i % receipts.size());
        w.write(array && i > 0 ? ",\n" : "");
        w.write(r);
        w.write(array ? "" : "\n");
        written += r.length() + 1;
      }
      w.write(array ? "\n]\n" : "");
    }
    return file;
  }

  @Test
  void verifiesAnNdjsonFileTwiceTheHeapWithTheReportOfAnUnconstrainedRun() throws Exception {
    String keys = write(dir, "keys.json", CliFixtures.keysDocument()).toString();
    String file = largeFile("large.ndjson", false, FILE_BYTES).toString();
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    int expectedCode =
        new VerifyCli(
                CliFixtures.CLOCK,
                new ByteArrayInputStream(new byte[0]),
                expected,
                new ByteArrayOutputStream())
            .run("verify", "--keys", keys, "--threads", "1", file);

    Result result = java(HEAP, "verify", "--keys", keys, "--threads", "2", file);

    assertThat(Files.size(Path.of(file))).isGreaterThan(FILE_BYTES);
    assertThat(result.err()).isEmpty();
    assertThat(result.exitCode()).isEqualTo(expectedCode).isEqualTo(1);
    assertThat(result.out()).isEqualTo(expected.toString(StandardCharsets.UTF_8));
    List<String> lines = result.out().lines().toList();
    int receipts = lines.size() - 1;
    assertThat(receipts).isGreaterThan(3000);
    assertThat(lines.subList(0, 2))
        .containsExactly(
            "VALID   01JLARGEALLOW  (allow email.send)", "VALID   01JLARGEDENY  (deny email.send)");
    assertThat(lines.get(2)).startsWith("INVALID 01JLARGETAMPERED  SIGNATURE: ");
    assertThat(lines.get(receipts))
        .isEqualTo(
            "RESULT  INVALID  "
                + receipts
                + " receipts: "
                + (receipts - receipts / 3)
                + " valid, "
                + receipts / 3
                + " invalid");
  }

  @Test
  void anInputThatMustBeReadWholeAndCannotFitExitsTwoWithOneLine() throws Exception {
    String keys = write(dir, "keys.json", CliFixtures.keysDocument()).toString();
    String file = largeFile("large.json", true, FILE_BYTES).toString();

    Result result = java(HEAP, "verify", "--keys", keys, "--json", file);

    assertThat(result.exitCode()).isEqualTo(2);
    // --json: nothing of the report was written, so standard output is the error document.
    JsonNode error = CliFixtures.parse(result.out());
    assertThat(error.get("verdict").asText()).isEqualTo("error");
    assertThat(error.get("error").asText())
        .isEqualTo(result.err().strip().substring("agentauth-verify: ".length()));
    assertThat(result.err().lines()).hasSize(1);
    assertThat(result.err())
        .startsWith("agentauth-verify: out of memory verifying " + file + " (maximum heap ")
        .contains("run with a larger -Xmx")
        .doesNotContain("\tat ", "Exception in thread", "OutOfMemoryError");
  }
}
