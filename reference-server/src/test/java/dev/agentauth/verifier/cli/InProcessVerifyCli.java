package dev.agentauth.verifier.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;

/**
 * Runs {@code agentauth-verify} in this JVM (its package-private constructor), for the server's
 * end-to-end tests: the exit status and everything written to stdout and stderr.
 */
public final class InProcessVerifyCli {
  private InProcessVerifyCli() {}

  /** One run's exit status and output. */
  public record Run(int exitCode, String out, String err) {
    /** Both streams, for assertion messages. */
    public String all() {
      return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  /** Runs {@code args} with the clock and environment given (only AGENTAUTH_API_KEY is read). */
  public static Run run(Clock clock, Map<String, String> env, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        new VerifyCli(
                clock,
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
}
