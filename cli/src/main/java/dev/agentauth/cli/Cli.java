package dev.agentauth.cli;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.FallbackPolicy;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import okhttp3.OkHttpClient;

/**
 * What one invocation of the command line works with: the environment, the standard streams, the
 * configuration directory, and how to build a client for the chosen profile. Tests build one with
 * their own streams and environment.
 */
final class Cli {
  /** Environment variable naming the profile to use. */
  static final String ENV_PROFILE = "AGENTAUTH_PROFILE";

  /** Environment variable holding the base URL when no profile is chosen. */
  static final String ENV_BASE_URL = "AGENTAUTH_BASE_URL";

  /** Environment variable holding the API key when no profile is chosen. */
  static final String ENV_API_KEY = "AGENTAUTH_API_KEY";

  /** The profile used when none is named and {@code AGENTAUTH_BASE_URL} is unset. */
  static final String DEFAULT_PROFILE = "default";

  private final Map<String, String> env;
  private final InputStream in;
  private final PrintWriter out;
  private final PrintWriter err;
  private final boolean stderrIsTerminal;
  private final Pause pause;

  Cli(
      Map<String, String> env,
      InputStream in,
      OutputStream out,
      OutputStream err,
      boolean stderrIsTerminal,
      Pause pause) {
    this.env = Map.copyOf(env);
    this.in = Objects.requireNonNull(in, "in");
    this.out =
        new PrintWriter(
            new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16),
            false);
    this.err = new PrintWriter(new OutputStreamWriter(err, StandardCharsets.UTF_8), true);
    this.stderrIsTerminal = stderrIsTerminal;
    this.pause = Objects.requireNonNull(pause, "pause");
  }

  /** Waits between polls and reconnects; tests shorten it. */
  @FunctionalInterface
  interface Pause {
    /** Waits {@code duration}; throws when the thread is interrupted. */
    void pause(Duration duration) throws InterruptedException;

    /** Waits on the calling thread. */
    static Pause system() {
      return d -> TimeUnit.NANOSECONDS.sleep(d.toNanos());
    }
  }

  String env(String name) {
    String v = env.get(name);
    return v == null || v.isEmpty() ? null : v;
  }

  InputStream in() {
    return in;
  }

  /** Standard output, buffered: commands flush it when their output must be seen at once. */
  PrintWriter out() {
    return out;
  }

  /** Standard error, flushed on each line. */
  PrintWriter err() {
    return err;
  }

  boolean stderrIsTerminal() {
    return stderrIsTerminal;
  }

  Pause pause() {
    return pause;
  }

  /**
   * The configuration directory: {@code $XDG_CONFIG_HOME/agentauth}, else {@code
   * %APPDATA%\agentauth} on Windows, else {@code ~/.config/agentauth}.
   */
  Path configDir() {
    String xdg = env("XDG_CONFIG_HOME");
    if (xdg != null) {
      return Path.of(xdg, "agentauth");
    }
    String appData = env("APPDATA");
    if (appData != null
        && System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows")) {
      return Path.of(appData, "agentauth");
    }
    return Path.of(System.getProperty("user.home"), ".config", "agentauth");
  }

  Profiles profiles() {
    return new Profiles(configDir());
  }

  /**
   * The connection to use: the profile named by {@code --profile} or {@code AGENTAUTH_PROFILE};
   * else {@code AGENTAUTH_BASE_URL} and {@code AGENTAUTH_API_KEY}; else the profile {@code
   * default}.
   *
   * @throws CliException (usage) when nothing is configured or the key cannot be read
   */
  Connection connection(String profileOption) {
    String name = profileOption != null ? profileOption : env(ENV_PROFILE);
    if (name == null && env(ENV_BASE_URL) != null) {
      String key = env(ENV_API_KEY);
      if (key == null) {
        throw CliException.usage(
            ENV_BASE_URL + " is set but " + ENV_API_KEY + " is not: set both, or use a profile");
      }
      return new Connection("environment", env(ENV_BASE_URL), key);
    }
    Profiles profiles = profiles();
    String chosen = name != null ? name : DEFAULT_PROFILE;
    Profiles.Profile profile = profiles.get(chosen);
    if (profile == null) {
      if (name == null) {
        throw CliException.usage(
            "not configured: run 'agentauth login --base-url URL --api-key-file FILE' or set "
                + ENV_BASE_URL
                + " and "
                + ENV_API_KEY);
      }
      throw CliException.usage(
          "no profile '" + chosen + "' in " + profiles.configFile() + ": run 'agentauth login'");
    }
    return new Connection(chosen, profile.baseUrl(), profiles.apiKey(chosen, profile, this));
  }

  /** Builds a client for {@code connection}: no fallback on checks, no redirects followed. */
  static AgentAuthClient client(Connection connection) {
    // An API key never follows a redirect: a 3xx is reported, not obeyed.
    OkHttpClient ok =
        new OkHttpClient.Builder().followRedirects(false).followSslRedirects(false).build();
    AgentAuthClient.Builder builder = AgentAuthClient.builder();
    try {
      builder.baseUrl(connection.baseUrl());
      builder.apiKey(connection.apiKey());
    } catch (IllegalArgumentException e) {
      throw CliException.usage("profile " + connection.profile() + ": " + e.getMessage());
    }
    try {
      return builder
          .okHttpClient(ok)
          .fallback(FallbackPolicy.disabled())
          .checkTimeout(AgentAuthClient.DEFAULT_REQUEST_TIMEOUT)
          .build();
    } catch (IllegalStateException e) {
      throw CliException.usage("profile " + connection.profile() + ": " + e.getMessage());
    }
  }

  /** Releases the client's threads and connections. */
  static void close(AgentAuthClient client) {
    client.okHttpClient().dispatcher().executorService().shutdown();
    client.okHttpClient().connectionPool().evictAll();
  }

  /** Where and as whom to connect. */
  record Connection(String profile, String baseUrl, String apiKey) {
    @Override
    public String toString() {
      return "Connection[profile=" + profile + ", baseUrl=" + baseUrl + ", apiKey=[redacted]]";
    }
  }

  /**
   * Whether standard error is a terminal (progress is shown only then). Java 17 cannot ask
   * directly: on Linux the descriptor's target tells; elsewhere a console means a terminal.
   */
  static boolean detectStderrTerminal() {
    Path fd = Path.of("/proc/self/fd/2");
    try {
      if (Files.isSymbolicLink(fd)) {
        String target = Files.readSymbolicLink(fd).toString();
        return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
      }
    } catch (IOException | SecurityException | UnsupportedOperationException e) {
      return false;
    }
    return System.console() != null;
  }
}
