package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Runs the console's JavaScript tests ({@code src/test/js/}, Node's built-in test runner) so that
 * {@code mvn verify} runs them: the in-browser verifier against the project's receipt vectors and
 * the receipt format's public vectors, step for step as the Java verifier. Skipped, saying so,
 * where Node.js 20 or newer is not installed.
 */
class ConsoleScriptsTest {

  @Test
  void javascriptVerifierPassesEveryReceiptVector() throws IOException, InterruptedException {
    String version = nodeVersion();
    assumeTrue(
        version != null,
        "node is not on the PATH: the console's JavaScript verifier tests (src/test/js) were not"
            + " run; install Node.js 20 or newer to run them");
    int major = Integer.parseInt(version.replaceFirst("^v(\\d+).*", "$1"));
    assumeTrue(
        major >= 20,
        "node " + version + " is older than 20 (no WebCrypto Ed25519): src/test/js was not run");

    Path log = Files.createTempFile("console-node-test", ".log");
    try {
      Process p =
          new ProcessBuilder("node", "--test", "src/test/js/")
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      boolean finished = p.waitFor(5, TimeUnit.MINUTES);
      if (!finished) {
        p.destroyForcibly();
      }
      String output = Files.readString(log, StandardCharsets.UTF_8);
      assertThat(finished).as("node --test did not finish in 5 minutes:%n%s", output).isTrue();
      assertThat(p.exitValue()).as("node --test src/test/js/ failed:%n%s", output).isZero();
      assertThat(output).contains("# fail 0").doesNotContain("# pass 0");
    } finally {
      Files.deleteIfExists(log);
    }
  }

  private static String nodeVersion() throws InterruptedException {
    try {
      Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      return p.waitFor() == 0 && out.startsWith("v") ? out : null;
    } catch (IOException e) {
      return null;
    }
  }
}
