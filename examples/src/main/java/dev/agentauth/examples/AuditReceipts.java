package dev.agentauth.examples;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.client.CheckParams;
import dev.agentauth.model.ScopeConstraints;
import dev.agentauth.server.AgentAuthServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An audit as an auditor runs it: export one authorization's receipt chain as NDJSON (one signed
 * receipt per line as the service serves it, from {@code client.receipts().chainJson}), save the
 * workspace's public keys document as served ({@code client.workspaces().keysJson}), and check both
 * offline with the auditor command line, {@code agentauth-verify verify --keys keys.json --chain
 * chain.ndjson} ({@code dev.agentauth.verifier.cli.VerifyCli}), which needs no API key and no
 * network.
 *
 * <pre>
 * java -cp examples/target/agentauth-quickstart.jar dev.agentauth.examples.AuditReceipts \
 *     [--out DIR] BASE_URL API_KEY WORKSPACE_ID AUTHORIZATION_ID
 * java -cp examples/target/agentauth-quickstart.jar dev.agentauth.examples.AuditReceipts [--out DIR]
 * </pre>
 *
 * <p>With no service arguments it starts an embedded reference server, creates an authorization,
 * makes a few checks (allow, deny, a rate limit) and revokes it, then audits that chain. The files
 * go to {@code --out DIR} (default: a new temporary directory). The auditor runs as a child JVM on
 * this JVM's class path, as an auditor would run {@code java -jar agentauth-verify.jar}; its output
 * is printed and its exit status (0 valid, 1 invalid, 2 input error) is this program's.
 */
public final class AuditReceipts {
  private static final Duration SIGN_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration AUDITOR_TIMEOUT = Duration.ofSeconds(60);
  private static final String VERIFY_CLI = "dev.agentauth.verifier.cli.VerifyCli";

  static final String USAGE =
      "Usage: AuditReceipts [--out DIR] [BASE_URL API_KEY WORKSPACE_ID AUTHORIZATION_ID]";

  private AuditReceipts() {}

  /**
   * The outcome of an audit.
   *
   * @param authorizationId the audited authorization
   * @param receipts how many receipts the chain file holds
   * @param chainFile the NDJSON chain, one signed receipt per line
   * @param keysFile the workspace's keys document
   * @param command the auditor command line that was run
   * @param exitCode the auditor's exit status: 0 valid, 1 invalid, 2 input error
   * @param output the auditor's standard output and standard error, in that order
   */
  public record Result(
      String authorizationId,
      int receipts,
      Path chainFile,
      Path keysFile,
      List<String> command,
      int exitCode,
      String output) {

    /** Whether the auditor found every receipt and the chain valid. */
    public boolean valid() {
      return exitCode == 0;
    }
  }

  /**
   * Runs the audit and exits with the auditor's status (2 for a wrong command line).
   *
   * @param args {@code [--out DIR] [BASE_URL API_KEY WORKSPACE_ID AUTHORIZATION_ID]}
   */
  public static void main(String[] args) throws Exception {
    List<String> rest = new ArrayList<>(List.of(args));
    Path out = null;
    if (rest.size() >= 2 && rest.get(0).equals("--out")) {
      out = Path.of(rest.get(1));
      rest = rest.subList(2, rest.size());
    }
    if (rest.contains("-h") || rest.contains("--help")) {
      System.out.println(USAGE);
      return;
    }
    if (!rest.isEmpty() && rest.size() != 4) {
      System.err.println("AuditReceipts: expected 0 or 4 arguments, found " + rest.size());
      System.err.println(USAGE);
      System.exit(2);
      return;
    }
    if (out == null) {
      out = Files.createTempDirectory("agentauth-audit");
    }
    Result result =
        rest.isEmpty()
            ? runDemo(out, System.out)
            : run(rest.get(0), rest.get(1), rest.get(2), rest.get(3), out, System.out);
    System.exit(result.exitCode());
  }

  /**
   * Audits {@code authorizationId} of {@code workspaceId} at {@code baseUrl}, writing {@code
   * chain.ndjson} and {@code keys.json} into {@code outDir}, and printing the auditor's verdict to
   * {@code out}.
   */
  public static Result run(
      String baseUrl,
      String apiKey,
      String workspaceId,
      String authorizationId,
      Path outDir,
      PrintStream out)
      throws IOException, InterruptedException {
    AgentAuthClient client = AgentAuthClient.builder().baseUrl(baseUrl).apiKey(apiKey).build();
    return audit(client, workspaceId, authorizationId, outDir, out);
  }

  /**
   * Starts an embedded reference server, writes a short history (an authorization, allowed and
   * denied checks, a revocation) and audits it.
   */
  public static Result runDemo(Path outDir, PrintStream out)
      throws IOException, InterruptedException {
    try (AgentAuthServer server = AgentAuthServer.builder().port(0).build().start()) {
      out.println("started an embedded reference server at " + server.baseUrl());
      AgentAuthClient client =
          AgentAuthClient.builder().baseUrl(server.baseUrl()).apiKey(server.apiKey()).build();
      String id =
          client
              .authorizations()
              .create(
                  AuthorizationCreateParams.inline()
                      .userId("user_8821")
                      .agentId("support_agent")
                      .scope("email.send", ScopeConstraints.builder().maxPerDay(1).build())
                      .scope("calendar.read")
                      .expiresAt(Instant.now().plus(Duration.ofDays(1)))
                      .build())
              .authorizationId();
      check(client, id, "calendar.read");
      check(client, id, "email.send");
      check(client, id, "email.send"); // over the daily limit: deny
      check(client, id, "files.delete"); // not granted: deny
      client.authorizations().revoke(id);
      check(client, id, "calendar.read"); // revoked: deny
      out.println("authorization " + id + ": 5 checks, then revoked");
      return audit(client, server.workspaceId(), id, outDir, out);
    }
  }

  private static void check(AgentAuthClient client, String authorizationId, String scope) {
    client.check(CheckParams.builder().authorizationId(authorizationId).scope(scope).build());
  }

  private static Result audit(
      AgentAuthClient client,
      String workspaceId,
      String authorizationId,
      Path outDir,
      PrintStream out)
      throws IOException, InterruptedException {
    Files.createDirectories(outDir);
    Path chain = outDir.resolve("chain.ndjson");
    Path keys = outDir.resolve("keys.json");
    // Every receipt of the authorization, oldest first (issuance order, the order a chain is
    // verified in), each exactly as served: byte for byte what was signed over, not re-serialized.
    List<String> receipts = client.receipts().chainJson(authorizationId, SIGN_TIMEOUT);
    try (Writer w = Files.newBufferedWriter(chain, StandardCharsets.UTF_8)) {
      for (String receipt : receipts) {
        // NDJSON: one receipt a line. JSON text holds line breaks only as whitespace between
        // tokens (never inside a string), so a space in their place changes nothing it means.
        w.write(receipt.replace('\r', ' ').replace('\n', ' '));
        w.write('\n');
      }
    }
    int count = receipts.size();
    out.println("exported " + count + " signed receipts of " + authorizationId + " to " + chain);
    // The keys document as served, too.
    Files.writeString(keys, client.workspaces().keysJson(workspaceId), StandardCharsets.UTF_8);
    out.println("saved the public keys of " + workspaceId + " to " + keys);

    out.println("$ agentauth-verify verify --keys " + keys + " --chain " + chain);
    Result verdict = verify(keys, chain);
    out.print(verdict.output());
    String word =
        switch (verdict.exitCode()) {
          case 0 -> "VALID";
          case 1 -> "INVALID";
          default -> "ERROR";
        };
    out.println("auditor verdict: " + word + " (exit " + verdict.exitCode() + ")");
    return new Result(
        authorizationId,
        count,
        chain,
        keys,
        verdict.command(),
        verdict.exitCode(),
        verdict.output());
  }

  /**
   * Runs the auditor command line on files already written, {@code agentauth-verify verify --keys
   * KEYS --chain CHAIN}, in a child JVM on this JVM's class path.
   *
   * @return the auditor's exit status and output ({@code authorizationId} null, {@code receipts}
   *     -1: the files were not counted)
   */
  public static Result verify(Path keys, Path chain) throws IOException, InterruptedException {
    List<String> command =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            System.getProperty("java.class.path"),
            VERIFY_CLI,
            "verify",
            "--keys",
            keys.toString(),
            "--chain",
            chain.toString());
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectInput(ProcessBuilder.Redirect.from(nullFile()))
            .start();
    CompletableFuture<String> output = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try (InputStream in = process.getInputStream()) {
                output.complete(new String(in.readAllBytes(), StandardCharsets.UTF_8));
              } catch (IOException e) {
                output.completeExceptionally(e);
              }
            },
            "auditor-output");
    reader.setDaemon(true);
    reader.start();
    if (!process.waitFor(AUDITOR_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new IOException("the auditor did not finish within " + AUDITOR_TIMEOUT);
    }
    String text;
    try {
      text = output.get(AUDITOR_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IOException("could not read the auditor's output", e);
    }
    return new Result(null, -1, chain, keys, command, process.exitValue(), text);
  }

  private static java.io.File nullFile() {
    return new java.io.File(
        System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT).startsWith("windows")
            ? "NUL"
            : "/dev/null");
  }
}
