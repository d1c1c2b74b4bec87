package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.server.ServerHarness.Resp;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded jar as a child process: the ready line, options and {@code AGENTAUTH_*} variables,
 * exit codes, and a clean exit on SIGTERM (decisions §12).
 */
class ServerMainIT {
  private static final String KEY = "sk_" + "Q1dtY3JlZGVudGlhbHM".repeat(2) + "abcde";
  private static final Pattern READY =
      Pattern.compile("agentauth-server listening on (http://127\\.0\\.0\\.1:(\\d+))");
  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
  private static final ObjectMapper MAPPER = AgentAuthJson.newObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /** The children's working directory: the default store lives under it, never in the module. */
  @TempDir Path work;

  /** The jar Maven's package phase built, found from the module or the project directory. */
  static Path jar() {
    Path base = Path.of(System.getProperty("basedir", System.getProperty("user.dir")));
    for (Path candidate :
        List.of(
            base.resolve("target/agentauth-server.jar"),
            base.resolve("reference-server/target/agentauth-server.jar"))) {
      if (Files.isRegularFile(candidate)) {
        return candidate;
      }
    }
    throw new AssertionError("agentauth-server.jar not found under " + base + "; run mvn package");
  }

  /**
   * A server process started from the shaded jar in a working directory of the test's choosing (the
   * default store lives under it), with its output collected line by line. Shared with the other
   * child-process tests of this package.
   */
  static final class Child implements AutoCloseable {
    final Process process;
    final BlockingQueue<String> stdoutLines = new LinkedBlockingQueue<>();
    final StringBuffer stdout = new StringBuffer();
    final StringBuffer stderr = new StringBuffer();
    private final List<Thread> pumps = new ArrayList<>();

    Child(List<String> args, Map<String, String> env, Path workingDirectory) {
      this(List.of("-jar", jar().toAbsolutePath().toString()), args, env, workingDirectory);
    }

    /** A child running {@code java <launch> <args>}, e.g. a main class on a class path. */
    Child(List<String> launch, List<String> args, Map<String, String> env, Path workingDirectory) {
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.addAll(launch);
      command.addAll(args);
      ProcessBuilder pb = new ProcessBuilder(command).directory(workingDirectory.toFile());
      pb.environment().keySet().removeIf(k -> k.startsWith("AGENTAUTH_"));
      pb.environment().putAll(env);
      try {
        process = pb.start();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      pumps.add(pump(process.getInputStream(), stdout, stdoutLines));
      pumps.add(pump(process.getErrorStream(), stderr, null));
    }

    private static Thread pump(InputStream in, StringBuffer all, BlockingQueue<String> lines) {
      Thread t =
          new Thread(
              () -> {
                try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                  String line;
                  while ((line = r.readLine()) != null) {
                    all.append(line).append('\n');
                    if (lines != null) {
                      lines.add(line);
                    }
                  }
                } catch (IOException ignored) {
                  // the process went away
                }
              },
              "child-output");
      t.setDaemon(true);
      t.start();
      return t;
    }

    /** Waits for the ready line and returns the base URL it names. */
    String awaitReady() throws InterruptedException {
      long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
      while (System.nanoTime() < deadline) {
        String line = stdoutLines.poll(100, TimeUnit.MILLISECONDS);
        if (line != null) {
          Matcher m = READY.matcher(line);
          if (m.matches()) {
            return m.group(1);
          }
        } else if (!process.isAlive() && stdoutLines.isEmpty()) {
          awaitOutput();
          throw new AssertionError(
              "server exited with " + process.exitValue() + " before ready; stderr: " + stderr);
        }
      }
      throw new AssertionError("no ready line within " + START_TIMEOUT + "; stdout: " + stdout);
    }

    /** Sends SIGTERM and returns the exit code. */
    int terminate() throws InterruptedException {
      process.destroy();
      return awaitExit();
    }

    /** Sends SIGKILL (no shutdown hooks run) and waits for the process to be gone. */
    void kill() throws InterruptedException {
      process.destroyForcibly();
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("process killed").isTrue();
    }

    /** Waits for the process to exit and for all of its output to be collected. */
    int awaitExit() throws InterruptedException {
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("process exited").isTrue();
      awaitOutput();
      return process.exitValue();
    }

    private void awaitOutput() throws InterruptedException {
      for (Thread t : pumps) {
        t.join(TimeUnit.SECONDS.toMillis(10));
      }
    }

    @Override
    public void close() {
      process.destroyForcibly();
    }
  }

  /**
   * One HTTP exchange with a child server; {@code body} null sends none, {@code bearer} null no
   * Authorization header. Throws IOException when the server cannot be reached or goes away.
   */
  static Resp send(
      HttpClient client,
      String method,
      String url,
      String body,
      String bearer,
      Map<String, String> headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(20))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .header("Content-Type", "application/json");
    if (bearer != null) {
      b.header("Authorization", "Bearer " + bearer);
    }
    headers.forEach(b::header);
    HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    JsonNode parsed;
    try {
      parsed = r.body().isEmpty() ? null : MAPPER.readTree(r.body());
    } catch (IOException notJson) {
      parsed = null;
    }
    return new Resp(r.statusCode(), r.headers().map(), r.body(), parsed);
  }

  private static JsonNode call(String method, String url, String body, String key, int expected) {
    try {
      HttpRequest.Builder b =
          HttpRequest.newBuilder(URI.create(url))
              .timeout(Duration.ofSeconds(10))
              .method(
                  method,
                  body == null
                      ? HttpRequest.BodyPublishers.noBody()
                      : HttpRequest.BodyPublishers.ofString(body))
              .header("Content-Type", "application/json");
      if (key != null) {
        b.header("Authorization", "Bearer " + key);
      }
      HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(method + " " + url + ": " + r.body()).isEqualTo(expected);
      return MAPPER.readTree(r.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static String authorizationJson(String extra) {
    return "{\"user_id\":\"u1\",\"agent_id\":\"a1\",\"scopes\":[{\"name\":\"email.send\"}],"
        + "\"expires_at\":\""
        + AgentAuthJson.formatInstant(Instant.now().plus(Duration.ofDays(1)))
        + "\""
        + extra
        + "}";
  }

  @Test
  void jarServesWithTheBootstrapKeyAndExitsZeroOnSigterm() throws Exception {
    try (Child child =
        new Child(List.of("--port", "0", "--bootstrap-api-key", KEY), Map.of(), work)) {
      String base = child.awaitReady();

      JsonNode auth = call("POST", base + "/v1/authorizations", authorizationJson(""), KEY, 201);
      String id = auth.path("authorization_id").asText();
      JsonNode check =
          call(
              "POST",
              base + "/v1/check?wait=true",
              "{\"authorization_id\":\"" + id + "\",\"scopes\":[\"email.send\"]}",
              KEY,
              200);
      assertThat(check.at("/results/email.send/decision").asText()).isEqualTo("allow");
      assertThat(check.at("/results/email.send/receipt/signature/alg").asText())
          .isEqualTo("Ed25519");
      assertThat(auth.at("/receipt/url").asText()).startsWith(base + "/v1/receipts/");
      call("GET", base + "/v1/workspaces/ws_local/keys", null, null, 200);

      assertThat(child.terminate()).as("exit code; stderr: %s", child.stderr).isZero();
      assertThat(child.stdout.toString()).doesNotContain("shown once");
    }
  }

  @Test
  void withoutABootstrapKeyOneIsGeneratedAndPrintedOnce() throws Exception {
    try (Child child = new Child(List.of("--port", "0"), Map.of(), work)) {
      String base = child.awaitReady();
      Matcher m =
          Pattern.compile("workspace ws_local api key \\(shown once\\): (sk_[A-Za-z0-9_-]{43})")
              .matcher(child.stdout);
      assertThat(m.find()).as(child.stdout.toString()).isTrue();

      call("GET", base + "/v1/authorizations", null, m.group(1), 200);
      assertThat(child.terminate()).isZero();
    }
  }

  @Test
  void environmentVariablesConfigureTheServerAndOptionsWinOverThem() throws Exception {
    Map<String, String> env =
        Map.of(
            "AGENTAUTH_PORT", "0",
            "AGENTAUTH_HOST", "127.0.0.1",
            "AGENTAUTH_BOOTSTRAP_WORKSPACE", "ws_env",
            "AGENTAUTH_BOOTSTRAP_PLAN", "pro",
            "AGENTAUTH_BOOTSTRAP_API_KEY", KEY,
            "AGENTAUTH_ADMIN_TOKEN", "env-admin",
            "AGENTAUTH_TEST_CLOCK", "true",
            "AGENTAUTH_PUBLIC_URL", "https://auth.example.test/",
            "AGENTAUTH_RATE_LIMIT", "1000",
            "AGENTAUTH_STORE", "memory");
    try (Child child = new Child(List.of("--bootstrap-plan", "free"), env, work)) {
      String base = child.awaitReady();

      JsonNode keys = call("GET", base + "/v1/workspaces/ws_env/keys", null, null, 200);
      assertThat(keys.path("workspace_id").asText()).isEqualTo("ws_env");
      call("GET", base + "/v1/workspaces/ws_local/keys", null, null, 404);

      JsonNode auth = call("POST", base + "/v1/authorizations", authorizationJson(""), KEY, 201);
      assertThat(auth.at("/receipt/url").asText())
          .startsWith("https://auth.example.test/v1/receipts/");
      // --bootstrap-plan free on the command line beats AGENTAUTH_BOOTSTRAP_PLAN=pro.
      call(
          "POST",
          base + "/v1/authorizations",
          authorizationJson(",\"budget_limit_micros\":10"),
          KEY,
          402);

      JsonNode clock =
          call("POST", base + "/admin/v1/clock", "{\"advance_seconds\":60}", "env-admin", 200);
      assertThat(clock.path("now").asText()).isNotBlank();
      call("POST", base + "/admin/v1/workspaces", "{\"workspace_id\":\"ws_2\"}", "env-admin", 201);

      assertThat(child.terminate()).isZero();
    }
  }

  @Test
  void invalidOptionsExitWithCode2() throws Exception {
    try (Child plan =
        new Child(List.of("--port", "0", "--bootstrap-plan", "gold"), Map.of(), work)) {
      assertThat(plan.awaitExit()).isEqualTo(2);
      assertThat(plan.stderr.toString()).contains("--bootstrap-plan must be free or pro");
    }
    try (Child key =
        new Child(List.of("--port", "0", "--bootstrap-api-key", "sk_short"), Map.of(), work)) {
      assertThat(key.awaitExit()).isEqualTo(2);
      assertThat(key.stderr.toString()).contains("sk_").contains("43");
    }
    try (Child port = new Child(List.of("--port", "70000"), Map.of(), work)) {
      assertThat(port.awaitExit()).isEqualTo(2);
      assertThat(port.stderr.toString()).contains("port must be 0 to 65535");
    }
    try (Child workspace =
        new Child(List.of("--port", "0", "--bootstrap-workspace", "has space"), Map.of(), work)) {
      assertThat(workspace.awaitExit()).isEqualTo(2);
      assertThat(workspace.stderr.toString()).contains("workspace id");
    }
    try (Child unknown = new Child(List.of("--prot", "0"), Map.of(), work)) {
      assertThat(unknown.awaitExit()).isEqualTo(2);
      assertThat(unknown.stderr.toString()).contains("--prot");
    }
  }

  // ---- storage options

  /** Writes a master key file of {@code bytes} random bytes, base64-encoded. */
  private static Path masterKeyFile(Path dir, String name, int bytes) throws IOException {
    byte[] raw = new byte[bytes];
    new SecureRandom().nextBytes(raw);
    Path file = dir.resolve(name);
    Files.writeString(file, Base64.getEncoder().encodeToString(raw) + "\n");
    return file;
  }

  @Test
  void theDefaultStoreIsSqliteUnderTheWorkingDirectoryWithAGeneratedOwnerOnlyMasterKey()
      throws Exception {
    Path data = work.resolve("agentauth-data");
    String id;
    try (Child child =
        new Child(List.of("--port", "0", "--bootstrap-api-key", KEY), Map.of(), work)) {
      String base = child.awaitReady();
      id =
          call("POST", base + "/v1/authorizations", authorizationJson(""), KEY, 201)
              .path("authorization_id")
              .asText();
      assertThat(child.terminate()).as("exit code; stderr: %s", child.stderr).isZero();

      assertThat(data.resolve("agentauth.db")).isRegularFile();
      Path key = data.resolve("master.key");
      assertThat(key).isRegularFile();
      assertThat(Files.getPosixFilePermissions(key))
          .containsExactlyInAnyOrder(
              PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
      assertThat(child.stderr.toString())
          .as("the generated-key warning")
          .containsIgnoringCase("warning")
          .contains(key.getFileName().toString());
    }
    try (Child again =
        new Child(List.of("--port", "0", "--bootstrap-api-key", KEY), Map.of(), work)) {
      String base = again.awaitReady();
      JsonNode auth = call("GET", base + "/v1/authorizations/" + id, null, KEY, 200);
      assertThat(auth.path("authorization_id").asText()).isEqualTo(id);
      assertThat(again.terminate()).as("exit code; stderr: %s", again.stderr).isZero();
      // The key exists now: nothing is generated, nothing to warn about.
      assertThat(again.stderr.toString()).doesNotContain("master.key");
    }
  }

  @Test
  void postgresWithoutAMasterKeyFileExitsWithCode2() throws Exception {
    String store = "postgres:jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    try (Child child = new Child(List.of("--port", "0", "--store", store), Map.of(), work)) {
      assertThat(child.awaitExit()).as("stderr: %s", child.stderr).isEqualTo(2);
      assertThat(child.stderr.toString()).contains("--master-key-file");
      assertThat(child.stdout.toString()).doesNotContain("listening");
    }
  }

  @Test
  void anUnknownStoreExitsWithCode2NamingTheAcceptedForms() throws Exception {
    try (Child child = new Child(List.of("--port", "0", "--store", "bogus"), Map.of(), work)) {
      assertThat(child.awaitExit()).as("stderr: %s", child.stderr).isEqualTo(2);
      assertThat(child.stderr.toString())
          .contains("bogus")
          .contains("memory")
          .contains("sqlite:")
          .contains("postgres:");
      assertThat(child.stdout.toString()).doesNotContain("listening");
    }
    assertThat(work.resolve("agentauth-data")).doesNotExist();
  }

  @Test
  void aMasterKeyFileOfTheWrongSizeExitsWithCode2() throws Exception {
    Path key = masterKeyFile(work, "short.key", 16);
    try (Child child =
        new Child(
            List.of(
                "--port",
                "0",
                "--store",
                "sqlite:" + work.resolve("db/agentauth.db"),
                "--master-key-file",
                key.toString()),
            Map.of(),
            work)) {
      assertThat(child.awaitExit()).as("stderr: %s", child.stderr).isEqualTo(2);
      assertThat(child.stderr.toString()).contains("short.key").contains("32");
      assertThat(child.stdout.toString()).doesNotContain("listening");
    }
  }

  @Test
  void restartingOnSqliteWithAnotherMasterKeyFails() throws Exception {
    String store = "sqlite:" + work.resolve("db/agentauth.db");
    Path first = masterKeyFile(work, "first.key", 32);
    Path second = masterKeyFile(work, "second.key", 32);
    try (Child child =
        new Child(
            List.of(
                "--port",
                "0",
                "--store",
                store,
                "--master-key-file",
                first.toString(),
                "--bootstrap-api-key",
                KEY),
            Map.of(),
            work)) {
      String base = child.awaitReady();
      call("POST", base + "/v1/authorizations", authorizationJson(""), KEY, 201);
      assertThat(child.terminate()).as("exit code; stderr: %s", child.stderr).isZero();
    }
    try (Child child =
        new Child(
            List.of(
                "--port",
                "0",
                "--store",
                store,
                "--master-key-file",
                second.toString(),
                "--bootstrap-api-key",
                KEY),
            Map.of(),
            work)) {
      assertThat(child.awaitExit()).as("stderr: %s", child.stderr).isNotZero();
      assertThat(child.stderr.toString()).containsIgnoringCase("master key");
      assertThat(child.stdout.toString()).doesNotContain("listening");
    }
    // The right key still opens it: the failed start changed nothing.
    try (Child child =
        new Child(
            List.of(
                "--port",
                "0",
                "--store",
                store,
                "--master-key-file",
                first.toString(),
                "--bootstrap-api-key",
                KEY),
            Map.of(),
            work)) {
      String base = child.awaitReady();
      assertThat(call("GET", base + "/v1/authorizations", null, KEY, 200).path("authorizations"))
          .hasSize(1);
      assertThat(child.terminate()).isZero();
    }
  }

  // ---- failure handling and secrets

  @Test
  void anOutOfMemoryErrorInAnyThreadEndsTheServerWithStatus3() throws Exception {
    // The jar's main with a thread that throws OutOfMemoryError when told to on stdin.
    String classPath =
        jar().toAbsolutePath()
            + java.io.File.pathSeparator
            + Path.of(FatalChild.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    try (Child child =
        new Child(
            List.of("-cp", classPath, FatalChild.class.getName()),
            List.of("--port", "0", "--store", "memory", "--bootstrap-api-key", KEY),
            Map.of(),
            work)) {
      String base = child.awaitReady();
      call("GET", base + "/v1/authorizations", null, KEY, 200);

      child.process.getOutputStream().write("oom\n".getBytes(StandardCharsets.US_ASCII));
      child.process.getOutputStream().flush();

      assertThat(child.awaitExit()).as("exit status; stderr: %s", child.stderr).isEqualTo(3);
      assertThat(child.stderr.toString())
          .contains("FATAL")
          .contains("java.lang.OutOfMemoryError")
          .contains(FatalChild.TRIGGER_THREAD);
    }
  }

  @Test
  void aServerOnEveryInterfaceWarnsThatItsMetricsArePublicUnlessATokenGuardsThem()
      throws Exception {
    List<String> base = List.of("--port", "0", "--host", "0.0.0.0", "--store", "memory");
    try (Child open = new Child(base, Map.of(), work)) {
      String url = open.awaitReady();
      assertThat(send(HTTP, "GET", url + "/metrics", null, null, Map.of()).status()).isEqualTo(200);
      assertThat(open.terminate()).isZero();
      assertThat(open.stderr.toString())
          .contains("without a metrics token: GET /metrics is public")
          .contains("--metrics-token");
    }
    try (Child guarded =
        new Child(base, Map.of("AGENTAUTH_METRICS_TOKEN", "metrics-token-1"), work)) {
      String url = guarded.awaitReady();
      assertThat(send(HTTP, "GET", url + "/metrics", null, null, Map.of()).status()).isEqualTo(401);
      assertThat(send(HTTP, "GET", url + "/metrics", null, "metrics-token-1", Map.of()).status())
          .isEqualTo(200);
      assertThat(guarded.terminate()).isZero();
      assertThat(guarded.stderr.toString())
          .doesNotContain("GET /metrics is public")
          .doesNotContain("metrics-token-1");
    }
    try (Child loopback = new Child(List.of("--port", "0", "--store", "memory"), Map.of(), work)) {
      loopback.awaitReady();
      assertThat(loopback.terminate()).isZero();
      assertThat(loopback.stderr.toString()).doesNotContain("GET /metrics is public");
    }
  }

  @Test
  void secretsOnTheCommandLineWarnWithoutShowingTheirValues() throws Exception {
    String admin = "admin-secret-on-the-command-line";
    try (Child child =
        new Child(
            List.of(
                "--port",
                "0",
                "--store",
                "memory",
                "--admin-token",
                admin,
                "--bootstrap-api-key",
                KEY),
            Map.of(),
            work)) {
      String base = child.awaitReady();
      call("POST", base + "/admin/v1/workspaces", "{\"workspace_id\":\"ws_2\"}", admin, 201);
      assertThat(child.terminate()).isZero();
      assertThat(child.stderr.toString())
          .contains("WARNING: --admin-token was given on the command line")
          .contains("AGENTAUTH_ADMIN_TOKEN")
          .contains("WARNING: --bootstrap-api-key was given on the command line")
          .doesNotContain(admin)
          .doesNotContain(KEY);
    }
  }

  @Test
  void secretsFromVariablesAndFilesWorkAndOnlyFilesReadableByOthersWarn() throws Exception {
    String admin = "admin-secret-in-a-file";
    Path adminFile = work.resolve("admin.token");
    Files.writeString(adminFile, admin + "\n");
    Files.setPosixFilePermissions(adminFile, PosixFilePermissions.fromString("rw-------"));
    Path keyFile = work.resolve("api.key");
    Files.writeString(keyFile, KEY + "\n");
    Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-r--r--"));
    try (Child child =
        new Child(
            List.of("--port", "0", "--store", "memory"),
            Map.of(
                "AGENTAUTH_ADMIN_TOKEN_FILE",
                adminFile.toString(),
                "AGENTAUTH_BOOTSTRAP_API_KEY_FILE",
                keyFile.toString()),
            work)) {
      String base = child.awaitReady();
      call("POST", base + "/admin/v1/workspaces", "{\"workspace_id\":\"ws_2\"}", admin, 201);
      call("GET", base + "/v1/authorizations", null, KEY, 200);
      assertThat(child.terminate()).isZero();
      String stderr = child.stderr.toString();
      assertThat(stderr).doesNotContain("command line").doesNotContain(admin).doesNotContain(KEY);
      assertThat(stderr)
          .contains("WARNING: --bootstrap-api-key-file " + keyFile + " is readable by other users")
          .doesNotContain(adminFile.toString());
    }
    try (Child both =
        new Child(
            List.of("--port", "0", "--store", "memory", "--admin-token-file", adminFile.toString()),
            Map.of("AGENTAUTH_ADMIN_TOKEN", "x"),
            work)) {
      assertThat(both.awaitExit()).isEqualTo(2);
      assertThat(both.stderr.toString()).contains("--admin-token or --admin-token-file");
    }
  }

  @Test
  void aMasterKeyFileReadableByOthersWarnsAndTheDatabaseFilesAreOwnerOnly() throws Exception {
    Path key = masterKeyFile(work, "master.key", 32);
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
    Path dir = Files.createDirectories(work.resolve("data"));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    try (Child child =
        new Child(
            List.of(
                "--port",
                "0",
                "--store",
                "sqlite:" + dir.resolve("agentauth.db"),
                "--master-key-file",
                key.toString(),
                "--bootstrap-api-key",
                KEY),
            Map.of(),
            work)) {
      String base = child.awaitReady();
      call("POST", base + "/v1/authorizations", authorizationJson(""), KEY, 201);
      for (String name : List.of("agentauth.db", "agentauth.db-wal", "agentauth.db-shm")) {
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(name))))
            .as(name)
            .isEqualTo("rw-------");
      }
      assertThat(child.terminate()).isZero();
      assertThat(child.stderr.toString())
          .contains("WARNING: --master-key-file " + key + " is readable by other users")
          .contains("chmod 600");
    }
  }
}
