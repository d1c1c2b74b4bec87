package dev.agentauth.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.mcp.GuardDecision;
import dev.agentauth.model.ReceiptLookup;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A client agentauth did not write: the official MCP TypeScript SDK ({@code
 * ts-client/check-spring.mjs}) drives the example Spring server over streamable HTTP with bearer
 * tokens, as any MCP host would, and checks what the starter's guard shows it; this side then
 * checks the same calls against the guard's decisions and the service's receipts.
 *
 * <p>Needs Node.js on the {@code PATH} and {@code @modelcontextprotocol/sdk} installed in the cache
 * {@code .ci/run} fills: the system property {@code agentauth.node.cache}, else the environment
 * variable {@code AGENTAUTH_NODE_CACHE}, else {@code ~/.cache/agentauth-node}. Skipped, saying why,
 * when either is missing.
 *
 * <p>Order-independent: the embedded service is shared by every test class of the JVM, and an
 * approved confirmation opens a window in which alice's send_email is allowed (as {@code
 * NotesMcpServerIT} does). So the script's "alice" and "bob" are this class's own users, {@value
 * #ALICE} and {@value #BOB}, granted as alice and bob are ({@link AgentAuthTestServer}), with their
 * own bearer tokens beside application.yml's. A third user, {@value #CONFIRMER}, whose {@code
 * delete_note} needs a confirmation, answers the server's elicitation from the TypeScript client
 * (accept, decline, cancel); the notes it deletes belong to this class's own application context.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "notes.tokens["
          + SpringTypeScriptClientIT.ALICE_TOKEN
          + "]="
          + SpringTypeScriptClientIT.ALICE,
      "notes.tokens[" + SpringTypeScriptClientIT.BOB_TOKEN + "]=" + SpringTypeScriptClientIT.BOB,
      "notes.tokens["
          + SpringTypeScriptClientIT.CONFIRMER_TOKEN
          + "]="
          + SpringTypeScriptClientIT.CONFIRMER
    })
@Import(AgentAuthTestServer.Decisions.class)
class SpringTypeScriptClientIT {
  static final String ALICE = "ts_alice";
  static final String BOB = "ts_bob";
  static final String ALICE_TOKEN = "ts-alice-token";
  static final String BOB_TOKEN = "ts-bob-token";
  static final String CONFIRMER = "ts_carol";
  static final String CONFIRMER_TOKEN = "ts-carol-token";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ULID = "[0-9A-HJKMNP-TV-Z]{26}";
  private static final String SDK = "@modelcontextprotocol/sdk";
  private static final String SDK_PACKAGE = "node_modules/" + SDK + "/package.json";

  @DynamicPropertySource
  static void agentAuth(DynamicPropertyRegistry registry) {
    AgentAuthTestServer.register(registry);
  }

  /** alice's and bob's grants (AgentAuthTestServer's), for this class's two users. */
  @BeforeAll
  static void grant() {
    AgentAuthClient client = AgentAuthTestServer.client();
    client
        .authorizations()
        .create(
            grant(ALICE)
                .scope("notes.read")
                .scope("email.send")
                .scope("notes.delete")
                .requiresConfirmFor("email.send")
                .requiresEscalationFor("notes.delete")
                .escalationTarget("notes.delete", "security")
                .build());
    client.authorizations().create(grant(BOB).scope("notes.read").build());
    client
        .authorizations()
        .create(
            grant(CONFIRMER)
                .scope("notes.read")
                .scope("notes.delete")
                .requiresConfirmFor("notes.delete")
                .build());
  }

  private static AuthorizationCreateParams.InlineBuilder grant(String user) {
    return AuthorizationCreateParams.inline()
        .userId(user)
        .agentId(AgentAuthTestServer.AGENT)
        .expiresAt(Instant.now().plus(Duration.ofHours(1)));
  }

  @LocalServerPort int port;
  @Autowired AgentAuthTestServer.DecisionLog log;

  @Test
  void theTypeScriptSdkSeesWhatTheStarterDecides() throws Exception {
    assumeTrue(nodeVersion() != null, "Node.js is not on the PATH: skipping the TypeScript client");
    Path cache = nodeCache();
    assumeTrue(
        Files.isRegularFile(cache.resolve(SDK_PACKAGE)),
        "@modelcontextprotocol/sdk is not installed in "
            + cache
            + " (.ci/run installs it; or set AGENTAUTH_NODE_CACHE): skipping the TypeScript client");
    Path script = tsClientDir().resolve("check-spring.mjs");
    assertThat(script).isRegularFile();
    int decisionsBefore = log.decisions.size();

    ProcessBuilder pb =
        new ProcessBuilder(
            "node",
            script.toString(),
            "http://127.0.0.1:" + port + "/mcp",
            ALICE_TOKEN,
            BOB_TOKEN,
            ALICE,
            CONFIRMER_TOKEN);
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
    String transcript = "stdout:\n" + out + "\nstderr:\n" + stderr.get(10, TimeUnit.SECONDS);
    assertThat(exited).as("node finished within 60 s; %s", transcript).isTrue();

    Map<String, JsonNode> checks = new LinkedHashMap<>();
    for (String line : out.split("\\R")) {
      if (!line.isBlank()) {
        JsonNode n = JSON.readTree(line);
        checks.put(n.path("check").asText(), n);
      }
    }
    assertThat(checks.keySet())
        .as(transcript)
        .containsExactly(
            "tools",
            "allow",
            "deny",
            "confirm",
            "forged",
            "elicit_accept",
            "elicit_decline",
            "elicit_cancel",
            "anonymous",
            "unknown_token");
    checks.forEach(
        (name, n) -> assertThat(n.path("ok").asBoolean()).as("%s: %s", name, n).isTrue());
    assertThat(node.exitValue()).as(transcript).isZero();

    // What the TypeScript client saw, checked from this side too.
    JsonNode tools = checks.get("tools").path("result");
    assertThat(names(tools.path("alice")))
        .containsExactly("delete_note", "search_notes", "send_email");
    assertThat(names(tools.path("bob"))).containsExactly("search_notes");
    JsonNode denial = checks.get("deny").path("result").path("structuredContent");
    assertThat(denial.path("decision").asText()).isEqualTo("deny");
    assertThat(denial.path("reason").asText()).isEqualTo("scope_not_authorized");
    String denyReceipt = denial.path("receipt_id").asText();
    assertThat(denyReceipt).matches(ULID);
    assertThat(AgentAuthTestServer.client().receipts().get(denyReceipt).receiptId())
        .isEqualTo(denyReceipt);
    JsonNode confirm = checks.get("confirm").path("result").path("structuredContent");
    assertThat(confirm.path("decision").asText()).isEqualTo("confirm");
    assertThat(confirm.path("confirm_nonce").asText()).isNotBlank();
    assertThat(confirm.path("confirm_expires_at").asText()).endsWith("Z");
    JsonNode forged = checks.get("forged").path("result");
    assertThat(forged.path("argument").path("isError").asBoolean()).isTrue();
    String forgedReceipt =
        forged.path("meta").path("structuredContent").path("receipt_id").asText();
    assertThat(forgedReceipt).matches(ULID);
    assertThat(AgentAuthTestServer.client().receipts().get(forgedReceipt))
        .isInstanceOf(ReceiptLookup.class);

    // The guard decided exactly the script's checked calls, each as the token's user: the forged
    // user_id argument never reached it, the forged _meta did and was bob's, and the connections
    // without a valid token made no decision at all. Each elicitation follows a confirm: accepted,
    // the re-check allowed via the confirmation; declined, a local denial; cancelled, nothing more.
    List<GuardDecision> run =
        List.copyOf(log.decisions.subList(decisionsBefore, log.decisions.size()));
    assertThat(run)
        .extracting(
            GuardDecision::toolName,
            GuardDecision::userId,
            d -> d.decision().value(),
            d -> d.reason().value())
        .containsExactly(
            tuple("search_notes", ALICE, "allow", "authorization_granted_scope_active"),
            tuple("send_email", BOB, "deny", "scope_not_authorized"),
            tuple("send_email", ALICE, "confirm", "scope_requires_user_confirmation"),
            tuple("send_email", BOB, "deny", "scope_not_authorized"),
            tuple("delete_note", CONFIRMER, "confirm", "scope_requires_user_confirmation"),
            tuple("delete_note", CONFIRMER, "allow", "authorization_granted_via_confirmation"),
            tuple("delete_note", CONFIRMER, "confirm", "scope_requires_user_confirmation"),
            tuple("delete_note", CONFIRMER, "deny", "confirmation_declined"),
            tuple("delete_note", CONFIRMER, "confirm", "scope_requires_user_confirmation"));
    assertThat(run.get(1).receiptId()).isEqualTo(denyReceipt);
    assertThat(run.get(2).receiptId()).isEqualTo(confirm.path("receipt_id").asText());
    assertThat(run.get(3).receiptId()).isEqualTo(forgedReceipt);
  }

  /**
   * .ci/run installs the SDK at the version examples/ts-client/package.json pins, for both scripts;
   * ts-client/package.json here must pin the same, so the two cannot drift apart.
   */
  @Test
  void theScriptPinsTheSdkVersionCiInstalls() throws IOException {
    Path here = tsClientDir().resolve("package.json");
    Path installed =
        tsClientDir().getParent().resolveSibling("examples").resolve("ts-client/package.json");
    String pinnedHere = JSON.readTree(here.toFile()).path("dependencies").path(SDK).asText();
    String pinnedForCi = JSON.readTree(installed.toFile()).path("dependencies").path(SDK).asText();

    assertThat(pinnedHere)
        .as(
            "%s pins %s %s; .ci/run installs %s from %s",
            here, SDK, pinnedHere, pinnedForCi, installed)
        .isNotBlank()
        .isEqualTo(pinnedForCi);
  }

  private static List<String> names(JsonNode array) {
    return JSON.convertValue(
        array, JSON.getTypeFactory().constructCollectionType(List.class, String.class));
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

  /** The script's directory: set by the POM's failsafe configuration, else relative to it. */
  private static Path tsClientDir() {
    String dir = System.getProperty("agentauth.examples.springTsClientDir");
    return (dir != null ? Path.of(dir) : Path.of("ts-client")).toAbsolutePath();
  }

  /** {@code node --version}, or null when Node.js cannot be run. */
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
    CompletableFuture<String> f = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              try (in) {
                f.complete(new String(in.readAllBytes(), StandardCharsets.UTF_8));
              } catch (IOException e) {
                f.completeExceptionally(new UncheckedIOException(e));
              }
            },
            "node-output");
    t.setDaemon(true);
    t.start();
    return f;
  }
}
