package dev.agentauth.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** Runs the command line in-process with its own environment, standard input and outputs. */
final class CliRunner {
  private final Map<String, String> env = new HashMap<>();
  private byte[] stdin = new byte[0];
  private boolean terminal;
  private Cli.Pause pause = d -> Thread.sleep(Math.min(d.toMillis(), 20));

  /** A runner whose configuration directory is {@code configHome}/agentauth. */
  CliRunner(Path configHome) {
    env.put("XDG_CONFIG_HOME", configHome.toString());
  }

  CliRunner env(String name, String value) {
    env.put(name, value);
    return this;
  }

  CliRunner stdin(String text) {
    this.stdin = text.getBytes(StandardCharsets.UTF_8);
    return this;
  }

  CliRunner terminal(boolean terminal) {
    this.terminal = terminal;
    return this;
  }

  CliRunner pause(Cli.Pause pause) {
    this.pause = pause;
    return this;
  }

  /** Uses {@code baseUrl} and {@code apiKey} through AGENTAUTH_BASE_URL / AGENTAUTH_API_KEY. */
  CliRunner connectTo(String baseUrl, String apiKey) {
    return env(Cli.ENV_BASE_URL, baseUrl).env(Cli.ENV_API_KEY, apiKey);
  }

  /** A {@link Cli} with this runner's environment, for looking at the command tree. */
  Cli cliForInspection() {
    return new Cli(
        env,
        new ByteArrayInputStream(stdin),
        new ByteArrayOutputStream(),
        new ByteArrayOutputStream(),
        terminal,
        pause);
  }

  Result run(String... args) {
    return run(new ByteArrayOutputStream(), args);
  }

  /** Runs with {@code out} as standard output, which another thread may watch while it runs. */
  Result run(ByteArrayOutputStream out, String... args) {
    return run(out, new ByteArrayOutputStream(), args);
  }

  /** Runs with {@code out} and {@code err}, which another thread may watch while it runs. */
  Result run(ByteArrayOutputStream out, ByteArrayOutputStream err, String... args) {
    Cli cli = new Cli(env, new ByteArrayInputStream(stdin), out, err, terminal, pause);
    int status = new AgentAuthCli(cli).run(args);
    return new Result(
        status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** What a run printed and its exit status. */
  record Result(int status, String out, String err) {
    @Override
    public String toString() {
      return "exit " + status + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
    }
  }

  static Duration ms(long millis) {
    return Duration.ofMillis(millis);
  }
}
