package dev.agentauth.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.model.ReceiptLookup;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A client agentauth did not write: the official MCP TypeScript SDK ({@code
 * ts-client/check-spring.mjs}) drives the example Spring server over streamable HTTP with bearer
 * tokens. Needs Node.js and {@code @modelcontextprotocol/sdk} in the cache {@code .ci/run} fills
 * ({@code AGENTAUTH_NODE_CACHE}, default {@code ~/.cache/agentauth-node}); skipped, saying why,
 * when either is missing.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SpringTypeScriptClientIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SDK_PACKAGE = "node_modules/@modelcontextprotocol/sdk/package.json";

  @DynamicPropertySource
  static void agentAuth(DynamicPropertyRegistry registry) {
    AgentAuthTestServer.register(registry);
  }

  @LocalServerPort int port;

  @Test
  void theTypeScriptSdkSeesWhatTheStarterDecides() throws Exception {
    assumeTrue(nodeVersion() != null, "Node.js is not on the PATH: skipping the TypeScript client");
    Path cache = nodeCache();
    assumeTrue(
        Files.isRegularFile(cache.resolve(SDK_PACKAGE)),
        "@modelcontextprotocol/sdk is not installed in "
            + cache
            + " (.ci/run installs it; or set AGENTAUTH_NODE_CACHE): skipping the TypeScript client");
    Path script = Path.of("ts-client", "check-spring.mjs");
    assertThat(script).isRegularFile();

    ProcessBuilder pb =
        new ProcessBuilder("node", script.toString(), "http://127.0.0.1:" + port + "/mcp");
    pb.environment().put("AGENTAUTH_NODE_CACHE", cache.toString());
    Process node = pb.start();
    node.getOutputStream().close();
    CompletableFuture<String> stdout = readAll(node.getInputStream());
    CompletableFuture<String> stderr = readAll(node.getErrorStream());
    boolean exited = node.waitFor(60, TimeUnit.SECONDS);
    if (!exited) {
      node.destroyForcibly();
    }
    String transcript =
        "stdout:\n"
            + stdout.get(10, TimeUnit.SECONDS)
            + "\nstderr:\n"
            + stderr.get(10, TimeUnit.SECONDS);
    assertThat(exited).as("node finished within 60 s; %s", transcript).isTrue();

    Map<String, JsonNode> checks = new LinkedHashMap<>();
    for (String line : stdout.join().split("\\R")) {
      if (!line.isBlank()) {
        JsonNode n = JSON.readTree(line);
        checks.put(n.path("check").asText(), n);
      }
    }
    assertThat(checks.keySet())
        .as(transcript)
        .containsExactly("tools", "allow", "deny", "confirm", "forged", "anonymous");
    checks.forEach(
        (name, n) -> assertThat(n.path("ok").asBoolean()).as("%s: %s", name, n).isTrue());
    assertThat(node.exitValue()).as(transcript).isZero();

    // The denial the TypeScript client saw has its receipt in the service.
    String receiptId =
        checks.get("deny").path("result").path("structuredContent").path("receipt_id").asText();
    assertThat(AgentAuthTestServer.client().receipts().get(receiptId))
        .isInstanceOf(ReceiptLookup.class);
    assertThat(checks.get("tools").path("result").path("bob").size()).isEqualTo(1);
  }

  /** .ci/run installs the SDK at the version examples/ts-client/package.json pins, for both. */
  @Test
  void theScriptIsWrittenForTheSdkVersionCiInstalls() throws IOException {
    JsonNode pinned =
        JSON.readTree(Path.of("..", "examples", "ts-client", "package.json").toFile());
    assertThat(pinned.path("dependencies").path("@modelcontextprotocol/sdk").asText())
        .as("check-spring.mjs was written against this version; re-run it when it changes")
        .isEqualTo("1.32.2");
  }

  private static Path nodeCache() {
    String configured = System.getenv("AGENTAUTH_NODE_CACHE");
    return configured == null || configured.isBlank()
        ? Path.of(System.getProperty("user.home"), ".cache", "agentauth-node")
        : Path.of(configured);
  }

  private static String nodeVersion() throws InterruptedException {
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

  private static CompletableFuture<String> readAll(InputStream in) {
    return CompletableFuture.supplyAsync(
        () -> {
          try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
  }
}
