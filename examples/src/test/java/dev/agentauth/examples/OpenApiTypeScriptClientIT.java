package dev.agentauth.examples;

import static dev.agentauth.examples.ExampleTestSupport.JSON;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.ReceiptListParams;
import dev.agentauth.model.Authorization;
import dev.agentauth.model.AuthorizationStatus;
import dev.agentauth.model.ReceiptSummary;
import dev.agentauth.server.AgentAuthServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client in another language, generated from the server's OpenAPI document, works: {@code
 * openapi-typescript} turns {@code docs/openapi.json} into TypeScript types, {@code tsc} checks
 * {@code examples/openapi-ts/quickstart.ts} against them in strict mode (including calls that must
 * not compile), and the compiled script runs the quickstart story through {@code openapi-fetch}
 * against the server jar: grant, allow, deny, confirm then approve, escalate then resolve, a
 * refused request, revoke, the receipt list, one signed receipt verified with the published keys.
 *
 * <p>Everything generated or compiled goes to {@code target/openapi-ts}. Needs Node.js on the
 * {@code PATH} and the packages {@code examples/openapi-ts/package.json} pins, installed by {@code
 * .ci/run} under the cache {@code TypeScriptClientIT} uses (the system property {@code
 * agentauth.node.cache}, else {@code AGENTAUTH_NODE_CACHE}, else {@code ~/.cache/agentauth-node}),
 * in its {@code openapi-ts} folder, or by {@code npm install} in {@code examples/openapi-ts}.
 * Skipped, saying why, when Node.js or the packages are missing.
 */
class OpenApiTypeScriptClientIT {
  private static final List<String> PACKAGES =
      List.of("openapi-typescript", "openapi-fetch", "typescript");
  private static final Pattern READY =
      Pattern.compile("agentauth-server listening on (http://127\\.0\\.0\\.1:\\d+)");
  private static final String WORKSPACE = "ws_openapi_ts";

  /** The story's steps, in order, as quickstart.ts prints them. */
  private static final List<String> STEPS =
      List.of(
          "grant",
          "allow",
          "deny",
          "confirm",
          "escalate",
          "invalid_request",
          "revoke",
          "receipts",
          "keys",
          "verify");

  @TempDir Path serverDirectory;

  @Test
  void aTypeScriptClientGeneratedFromTheDocumentRunsTheQuickstart() throws Exception {
    Path document = repositoryRoot().resolve("docs").resolve("openapi.json");
    assertThat(document)
        .as("the OpenAPI document the TypeScript client is generated from")
        .isRegularFile();
    assumeTrue(
        TypeScriptClientIT.nodeVersion() != null,
        "Node.js is not on the PATH: skipping the generated TypeScript client");
    Path modules = nodeModules();
    assumeTrue(
        modules != null,
        String.join(", ", PACKAGES)
            + " are not installed in "
            + nodeCache().resolve("openapi-ts")
            + " nor in "
            + projectDirectory()
            + " (.ci/run installs them; or run npm install there): skipping the generated"
            + " TypeScript client");

    Path work = prepareWorkDirectory(modules);

    // 1. Types from the document.
    Run generate =
        node(
            work,
            modules.resolve("openapi-typescript/bin/cli.js").toString(),
            document.toString(),
            "-o",
            work.resolve("schema.d.ts").toString());
    assertThat(generate.exitValue()).as(generate.output()).isZero();
    String schema = Files.readString(work.resolve("schema.d.ts"));
    assertThat(schema)
        .contains("\"/v1/check\"", "\"/v1/authorizations\"", "\"/v1/receipts/{id}\"")
        .contains("CheckResult", "SignedReceipt");

    // 2. The client code type-checks against them, strictly; the deliberate mistakes do not.
    String tsc = modules.resolve("typescript/bin/tsc").toString();
    Run check = node(work, tsc, "-p", work.toString(), "--noEmit");
    assertThat(check.exitValue()).as("tsc --noEmit:\n%s", check.output()).isZero();
    assertThat(Files.readString(work.resolve("quickstart.ts")))
        .as("quickstart.ts keeps the calls the generated types must reject")
        .contains("@ts-expect-error");

    // 3. Compiled (already checked), it runs the story against the server.
    Run emit = node(work, tsc, "-p", work.toString(), "--noCheck");
    assertThat(emit.exitValue()).as("tsc:\n%s", emit.output()).isZero();
    Path script = work.resolve("out/quickstart.js");
    assertThat(script).isRegularFile();

    try (Server server = startServer()) {
      Run story = node(work, script.toString(), server.baseUrl(), server.apiKey(), WORKSPACE);
      Map<String, JsonNode> steps = steps(story.stdout());
      assertThat(steps.keySet()).as(story.output()).containsExactlyElementsOf(STEPS);
      steps.forEach(
          (name, n) -> assertThat(n.path("ok").asBoolean()).as("%s: %s", name, n).isTrue());
      assertThat(story.exitValue()).as(story.output()).isZero();

      // What the TypeScript client did, seen from the Java client.
      String authorizationId = steps.get("grant").path("data").path("authorization_id").asText();
      AgentAuthClient client =
          AgentAuthClient.builder().baseUrl(server.baseUrl()).apiKey(server.apiKey()).build();
      Authorization authorization = client.authorizations().get(authorizationId);
      assertThat(authorization.userId()).isEqualTo("user_8821");
      assertThat(authorization.status()).isEqualTo(AuthorizationStatus.REVOKED);
      List<String> decisions = new ArrayList<>();
      for (ReceiptSummary s :
          client
              .receipts()
              .listAutoPaging(
                  ReceiptListParams.builder().authorizationId(authorizationId).build())) {
        decisions.add(s.decision().value());
      }
      assertThat(decisions)
          .containsExactly(
              "authorization_granted",
              "allow",
              "deny",
              "confirm",
              "allow",
              "escalate",
              "escalation_approved",
              "allow",
              "escalate",
              "authorization_revoked",
              "deny");
      List<String> seenByTypeScript = new ArrayList<>();
      steps
          .get("receipts")
          .path("data")
          .path("decisions")
          .forEach(d -> seenByTypeScript.add(d.asText()));
      assertThat(seenByTypeScript).isEqualTo(decisions);
      JsonNode problem = steps.get("invalid_request").path("data");
      assertThat(problem.path("code").asText()).isEqualTo("invalid_request");
      assertThat(problem.path("request_id").asText()).isNotBlank();
    }
  }

  /**
   * {@code target/openapi-ts}, emptied, holding the project's files and a link to the packages (so
   * that both tsc and node resolve {@code openapi-fetch} from there).
   */
  private static Path prepareWorkDirectory(Path modules) throws IOException {
    Path work = Path.of("target", "openapi-ts").toAbsolutePath();
    if (Files.exists(work)) {
      try (Stream<Path> s = Files.walk(work)) {
        for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
    Files.createDirectories(work);
    for (String file : List.of("package.json", "tsconfig.json", "quickstart.ts")) {
      Files.copy(
          projectDirectory().resolve(file), work.resolve(file), StandardCopyOption.COPY_ATTRIBUTES);
    }
    Files.createSymbolicLink(work.resolve("node_modules"), modules);
    return work;
  }

  /** The server under test: the jar as a child process when it was packaged, else embedded. */
  private interface Server extends AutoCloseable {
    String baseUrl();

    String apiKey();

    @Override
    void close() throws Exception;
  }

  private Server startServer() throws Exception {
    String configured = System.getProperty("agentauth.examples.serverJar");
    Path jar = configured == null ? null : Path.of(configured);
    if (jar == null || !Files.isRegularFile(jar)) {
      AgentAuthServer embedded =
          AgentAuthServer.builder().port(0).workspace(WORKSPACE, "pro").build().start();
      return new Server() {
        @Override
        public String baseUrl() {
          return embedded.baseUrl();
        }

        @Override
        public String apiKey() {
          return embedded.apiKey();
        }

        @Override
        public void close() {
          embedded.close();
        }
      };
    }
    byte[] secret = new byte[32];
    new SecureRandom().nextBytes(secret);
    String apiKey = "sk_" + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
    List<String> command = new ArrayList<>();
    command.add(ExampleTestSupport.java());
    command.addAll(ExampleTestSupport.quickJvmFlags());
    command.addAll(
        List.of(
            "-jar",
            jar.toString(),
            "--port",
            "0",
            "--store",
            "memory",
            "--no-console",
            "--bootstrap-workspace",
            WORKSPACE));
    ProcessBuilder pb = new ProcessBuilder(command).directory(serverDirectory.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("AGENTAUTH_"));
    pb.environment().put("AGENTAUTH_BOOTSTRAP_API_KEY", apiKey);
    pb.redirectErrorStream(true);
    Process process = pb.start();
    process.getOutputStream().close();
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    StringBuffer output = new StringBuffer();
    Thread pump =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  output.append(line).append('\n');
                  lines.add(line);
                }
              } catch (IOException ignored) {
                // the process went away
              }
            },
            "server-output");
    pump.setDaemon(true);
    pump.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    String baseUrl = null;
    while (baseUrl == null && System.nanoTime() < deadline) {
      String line = lines.poll(100, TimeUnit.MILLISECONDS);
      if (line != null) {
        Matcher m = READY.matcher(line);
        if (m.matches()) {
          baseUrl = m.group(1);
        }
      } else if (!process.isAlive()) {
        break;
      }
    }
    if (baseUrl == null) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      throw new AssertionError("the server jar did not start; its output:\n" + output);
    }
    String url = baseUrl;
    return new Server() {
      @Override
      public String baseUrl() {
        return url;
      }

      @Override
      public String apiKey() {
        return apiKey;
      }

      @Override
      public void close() throws InterruptedException {
        process.destroy(); // SIGTERM: the server drains and exits
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      }
    };
  }

  /** The JSON step lines of the script's standard output, by name. */
  private static Map<String, JsonNode> steps(String stdout) throws IOException {
    Map<String, JsonNode> steps = new LinkedHashMap<>();
    for (String line : stdout.split("\\R")) {
      if (!line.isBlank()) {
        JsonNode n = JSON.readTree(line);
        steps.put(n.path("check").asText(), n);
      }
    }
    return steps;
  }

  /** A finished node process: its exit status and its two outputs. */
  private record Run(int exitValue, String stdout, String stderr) {
    String output() {
      return "stdout:\n" + stdout + "\nstderr:\n" + stderr;
    }
  }

  /** {@code node args...} in {@code directory}, for at most 120 s. */
  private static Run node(Path directory, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add("node");
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).directory(directory.toFile()).start();
    p.getOutputStream().close();
    CompletableFuture<String> out = TypeScriptClientIT.readAll(p.getInputStream());
    CompletableFuture<String> err = TypeScriptClientIT.readAll(p.getErrorStream());
    boolean exited = p.waitFor(120, TimeUnit.SECONDS);
    if (!exited) {
      p.destroyForcibly();
    }
    Run run =
        new Run(
            exited ? p.exitValue() : -1,
            out.get(10, TimeUnit.SECONDS),
            err.get(10, TimeUnit.SECONDS));
    assertThat(exited).as("node %s finished within 120 s; %s", args[0], run.output()).isTrue();
    return run;
  }

  /**
   * The {@code node_modules} folder holding every pinned package: the cache's {@code openapi-ts}
   * prefix, else the project's own; null when neither has them all.
   */
  private static Path nodeModules() {
    for (Path base : List.of(nodeCache().resolve("openapi-ts"), projectDirectory())) {
      Path modules = base.resolve("node_modules").toAbsolutePath();
      if (PACKAGES.stream()
          .allMatch(p -> Files.isRegularFile(modules.resolve(p).resolve("package.json")))) {
        return modules;
      }
    }
    return null;
  }

  private static Path nodeCache() {
    String configured = System.getProperty("agentauth.node.cache");
    if (configured == null || configured.isBlank()) {
      configured = System.getenv("AGENTAUTH_NODE_CACHE");
    }
    if (configured == null || configured.isBlank()) {
      return Path.of(System.getProperty("user.home"), ".cache", "agentauth-node");
    }
    return Path.of(configured);
  }

  /** {@code examples/openapi-ts}: the package.json, tsconfig.json and quickstart.ts. */
  private static Path projectDirectory() {
    String dir = System.getProperty("agentauth.examples.openapiTsDir");
    return (dir != null ? Path.of(dir) : Path.of("openapi-ts")).toAbsolutePath();
  }

  /** The repository root: the examples module's parent. */
  private static Path repositoryRoot() {
    return Path.of("").toAbsolutePath().getParent();
  }
}
