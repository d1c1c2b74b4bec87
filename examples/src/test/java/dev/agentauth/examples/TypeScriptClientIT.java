package dev.agentauth.examples;

import static dev.agentauth.examples.ExampleTestSupport.JSON;
import static dev.agentauth.examples.ExampleTestSupport.ULID;
import static dev.agentauth.examples.ExampleTestSupport.authorize;
import static dev.agentauth.examples.ExampleTestSupport.scope;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.model.ReceiptLookup;
import dev.agentauth.server.AgentAuthServer;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A client agentauth did not write: the official MCP TypeScript SDK ({@code
 * examples/ts-client/check-mapping.mjs}) launches the guarded tool server on stdio, as any MCP host
 * would ({@code java -jar agentauth-guarded-tools.jar}), and checks how decisions reach it.
 *
 * <p>Needs Node.js on the {@code PATH} and {@code @modelcontextprotocol/sdk} installed in the cache
 * {@code .ci/run} fills: the system property {@code agentauth.node.cache}, else the environment
 * variable {@code AGENTAUTH_NODE_CACHE}, else {@code ~/.cache/agentauth-node}. Skipped, saying why,
 * when either is missing.
 */
class TypeScriptClientIT {
  private static final String USER = "user_ts";
  private static final String SDK_PACKAGE = "node_modules/@modelcontextprotocol/sdk/package.json";

  @Test
  void theTypeScriptSdkSeesEachDecisionAsTheMiddlewareTableSays() throws Exception {
    Path cache = requireNodeAndSdk();
    Path script = tsClientDir().resolve("check-mapping.mjs");
    assertThat(script).isRegularFile();

    try (AgentAuthServer agentAuth = AgentAuthServer.builder().port(0).build().start()) {
      AgentAuthClient client =
          AgentAuthClient.builder().baseUrl(agentAuth.baseUrl()).apiKey(agentAuth.apiKey()).build();
      String authorizationId =
          authorize(client, USER, scope("read_calendar"), scope("delete_file"));

      List<String> command = new ArrayList<>();
      command.addAll(
          List.of(
              "node",
              script.toString(),
              agentAuth.baseUrl(),
              agentAuth.apiKey(),
              USER,
              authorizationId,
              "--"));
      command.addAll(serverLaunch());
      NodeRun run = runNode(command, cache);
      Map<String, JsonNode> checks = run.checks();
      String transcript = run.transcript();
      assertThat(checks.keySet())
          .as(transcript)
          .containsExactly(
              "tools",
              "allow",
              "deny",
              "confirm",
              "confirm_then_approved",
              "missing_user_id",
              "authorization_not_found");
      checks.forEach(
          (name, n) -> assertThat(n.path("ok").asBoolean()).as("%s: %s", name, n).isTrue());
      assertThat(run.exitValue()).as(transcript).isZero();

      // What the TypeScript client saw, checked from this side too.
      JsonNode deny = checks.get("deny").path("result");
      assertThat(deny.path("isError").asBoolean()).isTrue();
      JsonNode denial = deny.path("structuredContent");
      assertThat(denial.path("decision").asText()).isEqualTo("deny");
      assertThat(denial.path("reason").asText()).isEqualTo("scope_not_authorized");
      assertThat(denial.path("receipt_id").asText()).matches(ULID);
      assertThat(client.receipts().get(denial.path("receipt_id").asText()))
          .isInstanceOf(ReceiptLookup.class);
      JsonNode confirm = checks.get("confirm").path("result").path("structuredContent");
      assertThat(confirm.path("decision").asText()).isEqualTo("confirm");
      assertThat(confirm.path("confirm_nonce").asText()).isNotBlank();
      assertThat(confirm.path("confirm_prompt_hint").asText()).isNotBlank();
      assertThat(checks.get("allow").path("result").path("content").path(0).path("text").asText())
          .startsWith("Calendar for ");
    }
  }

  /**
   * {@code check-elicitation.mjs}: a TypeScript SDK client that declared the {@code elicitation}
   * capability answers the guard's question ({@code --elicitation}, streamable HTTP, the embedded
   * server and its demo user) with accept, accept with the box unticked, decline and cancel, and a
   * client without the capability calls too. What the service recorded is checked here: the allow
   * that followed the user's approval names the tool server's key, its role and {@code
   * mcp_elicitation}; a declined nonce is used up (410); a cancelled one, or one nobody was asked
   * about, is still pending.
   */
  @Test
  void theTypeScriptSdkAnswersTheConfirmationInTheClient() throws Exception {
    Path cache = requireNodeAndSdk();
    Path script = tsClientDir().resolve("check-elicitation.mjs");
    assertThat(script).isRegularFile();
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    GuardedToolServer.Options options =
        GuardedToolServer.Options.parse(
            List.of("--transport", "http", "--port", "0", "--elicitation"), Map.of());
    try (GuardedToolServer server =
        GuardedToolServer.start(
            options,
            InputStream.nullInputStream(),
            PrintStream.nullOutputStream(),
            new PrintStream(log, true, StandardCharsets.UTF_8))) {
      NodeRun run =
          runNode(
              List.of("node", script.toString(), server.mcpUrl(), GuardedToolServer.DEMO_USER),
              cache);
      String transcript = run.transcript() + "\nserver log:\n" + log;
      Map<String, JsonNode> checks = run.checks();
      assertThat(checks.keySet())
          .as(transcript)
          .containsExactly("accept", "accept_unticked", "decline", "cancel", "no_capability");
      checks.forEach(
          (name, n) -> assertThat(n.path("ok").asBoolean()).as("%s: %s", name, n).isTrue());
      assertThat(run.exitValue()).as(transcript).isZero();

      ElicitationAssertions.of(server).assertRecorded(checks);
    }
  }

  /** Skips the test, saying why, without Node.js or the SDK; else the SDK's install prefix. */
  private static Path requireNodeAndSdk() throws InterruptedException {
    assumeTrue(nodeVersion() != null, "Node.js is not on the PATH: skipping the TypeScript client");
    Path cache = nodeCache();
    assumeTrue(
        Files.isRegularFile(cache.resolve(SDK_PACKAGE)),
        "@modelcontextprotocol/sdk is not installed in "
            + cache
            + " (.ci/run installs it; or set AGENTAUTH_NODE_CACHE): skipping the TypeScript client");
    return cache;
  }

  /** A finished script: its JSON check lines by name, its exit status and its output. */
  private record NodeRun(Map<String, JsonNode> checks, int exitValue, String transcript) {}

  /** Runs {@code command} (a node script printing one JSON check per line) for at most 60 s. */
  private static NodeRun runNode(List<String> command, Path cache) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().put("AGENTAUTH_NODE_CACHE", cache.toString());
    Process node = pb.start();
    node.getOutputStream().close();
    CompletableFuture<String> stdout = readAll(node.getInputStream());
    CompletableFuture<String> stderr = readAll(node.getErrorStream());
    boolean exited = node.waitFor(60, TimeUnit.SECONDS);
    if (!exited) {
      node.destroyForcibly();
    }
    String out = stdout.get(10, TimeUnit.SECONDS);
    String err = stderr.get(10, TimeUnit.SECONDS);
    String transcript = "stdout:\n" + out + "\nstderr:\n" + err;
    assertThat(exited).as("node finished within 60 s; %s", transcript).isTrue();
    Map<String, JsonNode> checks = new LinkedHashMap<>();
    for (String line : out.split("\\R")) {
      if (!line.isBlank()) {
        JsonNode n = JSON.readTree(line);
        checks.put(n.path("check").asText(), n);
      }
    }
    return new NodeRun(checks, node.exitValue(), transcript);
  }

  /**
   * How the TypeScript client launches the server: the shaded jar, as an MCP host would, when it
   * has been packaged; else this JVM's class path.
   */
  private static List<String> serverLaunch() {
    List<String> launch = new ArrayList<>();
    launch.add(ExampleTestSupport.java());
    launch.addAll(ExampleTestSupport.quickJvmFlags());
    String jar = System.getProperty("agentauth.examples.guardedToolsJar");
    if (jar != null && new File(jar).isFile()) {
      launch.addAll(List.of("-jar", jar));
    } else {
      launch.addAll(List.of("-cp", System.getProperty("java.class.path"), ExampleTestSupport.MAIN));
    }
    return launch;
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

  private static Path tsClientDir() {
    String dir = System.getProperty("agentauth.examples.tsClientDir");
    return dir != null ? Path.of(dir) : Path.of("ts-client");
  }

  /** {@code node --version}, or null when Node.js cannot be run. */
  static String nodeVersion() throws InterruptedException {
    try {
      Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
      p.getOutputStream().close();
      CompletableFuture<String> out = readAll(p.getInputStream());
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return null;
      }
      return p.exitValue() == 0 ? out.join().strip() : null;
    } catch (IOException e) {
      return null;
    }
  }

  /** All of {@code in} as UTF-8, read on a daemon thread (a child's output must be drained). */
  static CompletableFuture<String> readAll(InputStream in) {
    CompletableFuture<String> f = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              try (in) {
                f.complete(new String(in.readAllBytes(), StandardCharsets.UTF_8));
              } catch (IOException e) {
                f.completeExceptionally(e);
              }
            },
            "child-output");
    t.setDaemon(true);
    t.start();
    return f;
  }
}
