package dev.agentauth.server;

import dev.agentauth.server.fatal.FatalErrorPolicy;
import dev.agentauth.server.http.ConnectionLimits;
import dev.agentauth.server.http.ReceiptGate;
import dev.agentauth.server.service.ReceiptQuotas;
import dev.agentauth.server.signing.SigningService;
import dev.agentauth.server.store.MemoryStore;
import dev.agentauth.server.store.Store;
import dev.agentauth.server.store.StoreException;
import dev.agentauth.server.store.jdbc.JdbcStore;
import dev.agentauth.server.store.jdbc.MasterKey;
import dev.agentauth.server.webhook.DeliveryWorker;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code java -jar agentauth-server.jar}: runs the reference server until SIGTERM. Every option can
 * also be given as an environment variable {@code AGENTAUTH_<NAME>} (e.g. {@code AGENTAUTH_PORT});
 * a command-line option wins over the variable.
 */
@Command(
    name = "agentauth-server",
    mixinStandardHelpOptions = true,
    versionProvider = ServerMain.Version.class,
    description = "Runs the agentauth reference server.")
public final class ServerMain implements Callable<Integer> {

  @Option(
      names = "--port",
      defaultValue = "${env:AGENTAUTH_PORT:-8080}",
      description = "Port to listen on; 0 picks a free one (default ${DEFAULT-VALUE}).")
  int port;

  @Option(
      names = "--host",
      defaultValue = "${env:AGENTAUTH_HOST:-127.0.0.1}",
      description = "Interface to bind (default ${DEFAULT-VALUE}).")
  String host;

  @Option(
      names = "--store",
      defaultValue = "${env:AGENTAUTH_STORE:-sqlite:./agentauth-data/agentauth.db}",
      description =
          "Storage: sqlite:PATH (default ${DEFAULT-VALUE}), postgres:JDBC_URL (several instances"
              + " may share one database), or memory (nothing survives a restart).")
  String store;

  @Option(
      names = "--master-key-file",
      defaultValue = "${env:AGENTAUTH_MASTER_KEY_FILE}",
      description =
          "File holding the 32-byte key (raw or base64) that encrypts signing keys at rest."
              + " Required for postgres:; for sqlite: it defaults to master.key beside the"
              + " database, generated on first start.")
  String masterKeyFile;

  @Option(
      names = "--admin-token",
      defaultValue = "${env:AGENTAUTH_ADMIN_TOKEN}",
      description =
          "Enables the admin API for callers presenting this bearer token. Prefer"
              + " AGENTAUTH_ADMIN_TOKEN or --admin-token-file: other local users can read the"
              + " command line.")
  String adminToken;

  @Option(
      names = "--admin-token-file",
      defaultValue = "${env:AGENTAUTH_ADMIN_TOKEN_FILE}",
      description = "File holding the admin token (surrounding whitespace is ignored).")
  String adminTokenFile;

  @Option(
      names = "--metrics-token",
      defaultValue = "${env:AGENTAUTH_METRICS_TOKEN}",
      description =
          "Makes GET /metrics require this bearer token (default: /metrics is public). Prefer"
              + " AGENTAUTH_METRICS_TOKEN or --metrics-token-file.")
  String metricsToken;

  @Option(
      names = "--metrics-token-file",
      defaultValue = "${env:AGENTAUTH_METRICS_TOKEN_FILE}",
      description = "File holding the metrics token (surrounding whitespace is ignored).")
  String metricsTokenFile;

  @Option(
      names = "--test-clock",
      defaultValue = "${env:AGENTAUTH_TEST_CLOCK:-false}",
      description = "Use a clock that only POST /admin/v1/clock moves (testing only).")
  boolean testClock;

  @Option(
      names = "--console",
      negatable = true,
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "${env:AGENTAUTH_CONSOLE:-true}",
      description =
          "Serve the approvers' and auditors' console at /console/ (default ${DEFAULT-VALUE});"
              + " --no-console or --console=false turns it off.")
  boolean console;

  @Option(
      names = "--rate-limit",
      defaultValue = "${env:AGENTAUTH_RATE_LIMIT:-0}",
      description = "Requests per second per API key; 0 = unlimited (default).")
  int rateLimit;

  @Option(
      names = "--signing-backlog",
      defaultValue = "${env:AGENTAUTH_SIGNING_BACKLOG:-50000}",
      description =
          "Pending receipts from which checks and new authorizations answer 503 until signing"
              + " catches up (default 50000).")
  long signingBacklog;

  // ---- signing fairness and waits (issue 25, items 3 and 4)

  @Option(
      names = "--signing-backlog-per-workspace",
      defaultValue = "${env:AGENTAUTH_SIGNING_BACKLOG_PER_WORKSPACE:-5000}",
      description =
          "Unsigned receipts of one workspace from which its checks and new authorizations answer"
              + " 503 until signing catches up (default 5000).")
  long signingBacklogPerWorkspace;

  // ---- fair admission of checks and new authorizations (ReceiptGate)

  @Option(
      names = "--checks-in-flight",
      defaultValue = "${env:AGENTAUTH_CHECKS_IN_FLIGHT:-8}",
      description =
          "Checks and new authorizations of all workspaces parsed, decided and committed at once;"
              + " the others wait for their turn, the workspaces served in turn (default"
              + " ${DEFAULT-VALUE}).")
  int checksInFlight;

  @Option(
      names = "--checks-queued-per-workspace",
      defaultValue = "${env:AGENTAUTH_CHECKS_QUEUED_PER_WORKSPACE:-1024}",
      description =
          "Checks and new authorizations of one workspace that may wait for their turn; more are"
              + " answered 429 rate_limited at once (default ${DEFAULT-VALUE}).")
  int checksQueuedPerWorkspace;

  @Option(
      names = "--checks-queued-bytes-per-workspace",
      defaultValue = "${env:AGENTAUTH_CHECKS_QUEUED_BYTES_PER_WORKSPACE:-33554432}",
      description =
          "Request-body bytes of one workspace's waiting checks and new authorizations; more are"
              + " answered 429 rate_limited at once (default ${DEFAULT-VALUE}, 32 MiB).")
  long checksQueuedBytesPerWorkspace;

  @Option(
      names = "--checks-queued-bytes",
      defaultValue = "${env:AGENTAUTH_CHECKS_QUEUED_BYTES:-134217728}",
      description =
          "Request-body bytes of all waiting checks and new authorizations; more are answered 503"
              + " at once (default ${DEFAULT-VALUE}, 128 MiB).")
  long checksQueuedBytes;

  @Option(
      names = "--checks-queue-timeout",
      defaultValue = "${env:AGENTAUTH_CHECKS_QUEUE_TIMEOUT:-10}",
      description =
          "Seconds a check or new authorization may wait for its turn; then 503 (default"
              + " ${DEFAULT-VALUE}).")
  int checksQueueTimeoutSeconds;

  @Option(
      names = "--signing-waits-per-workspace",
      defaultValue = "${env:AGENTAUTH_SIGNING_WAITS_PER_WORKSPACE:-8}",
      description =
          "Requests of one workspace that may wait for signatures (wait=true) at once; more are"
              + " answered at once with pending receipts (default 8).")
  int signingWaitsPerWorkspace;

  @Option(
      names = "--signing-waits",
      defaultValue = "${env:AGENTAUTH_SIGNING_WAITS:-64}",
      description =
          "Requests of all workspaces that may wait for signatures (wait=true) at once"
              + " (default 64).")
  int signingWaits;

  // ---- receipt quotas (per workspace and UTC day, by plan; 0 = unlimited)

  @Option(
      names = "--quota-free-receipts",
      defaultValue = "${env:AGENTAUTH_QUOTA_FREE_RECEIPTS:-100000}",
      description =
          "Receipts a free workspace may store per UTC day; then checks and new authorizations"
              + " answer 429 quota_exceeded until the next day. 0 = unlimited (default"
              + " ${DEFAULT-VALUE}).")
  long quotaFreeReceipts;

  @Option(
      names = "--quota-free-bytes",
      defaultValue = "${env:AGENTAUTH_QUOTA_FREE_BYTES:-1073741824}",
      description =
          "Receipt bytes a free workspace may store per UTC day; 0 = unlimited (default"
              + " ${DEFAULT-VALUE}, 1 GiB).")
  long quotaFreeBytes;

  @Option(
      names = "--quota-pro-receipts",
      defaultValue = "${env:AGENTAUTH_QUOTA_PRO_RECEIPTS:-5000000}",
      description =
          "Receipts a pro workspace may store per UTC day; 0 = unlimited (default"
              + " ${DEFAULT-VALUE}).")
  long quotaProReceipts;

  @Option(
      names = "--quota-pro-bytes",
      defaultValue = "${env:AGENTAUTH_QUOTA_PRO_BYTES:-10737418240}",
      description =
          "Receipt bytes a pro workspace may store per UTC day; 0 = unlimited (default"
              + " ${DEFAULT-VALUE}, 10 GiB).")
  long quotaProBytes;

  // ---- API key limits
  @Option(
      names = "--max-api-keys-per-workspace",
      defaultValue = "${env:AGENTAUTH_MAX_API_KEYS_PER_WORKSPACE:-1000}",
      description =
          "API keys (neither revoked nor expired) a workspace may hold; creating one more answers"
              + " 400 until one is revoked (default ${DEFAULT-VALUE}).")
  int maxApiKeysPerWorkspace;

  @Option(
      names = "--public-url",
      defaultValue = "${env:AGENTAUTH_PUBLIC_URL}",
      description =
          "Public base URL for receipt links and the console links in webhook events (default"
              + " http://HOST:PORT for receipts; webhook events carry no console link without it).")
  String publicUrl;

  @Option(
      names = "--webhooks-allow-loopback",
      defaultValue = "${env:AGENTAUTH_WEBHOOKS_ALLOW_LOOPBACK:-false}",
      description =
          "Let webhooks point at loopback addresses, over plain http:// too (tests and local use"
              + " only; default: https:// URLs resolving to public addresses only).")
  boolean webhooksAllowLoopback;

  @Option(
      names = "--webhook-retention-days",
      defaultValue = "${env:AGENTAUTH_WEBHOOK_RETENTION_DAYS:-7}",
      description =
          "Days after its event a finished webhook delivery (delivered, failed, cancelled) stays"
              + " in the delivery log before it is deleted; 1 to 3650 (default ${DEFAULT-VALUE}).")
  int webhookRetentionDays;

  @Option(
      names = "--bootstrap-workspace",
      defaultValue = "${env:AGENTAUTH_BOOTSTRAP_WORKSPACE:-ws_local}",
      description = "Workspace created at start if absent (default ${DEFAULT-VALUE}).")
  String bootstrapWorkspace;

  @Option(
      names = "--bootstrap-plan",
      defaultValue = "${env:AGENTAUTH_BOOTSTRAP_PLAN:-pro}",
      description = "Plan of the bootstrap workspace: free or pro (default ${DEFAULT-VALUE}).")
  String bootstrapPlan;

  @Option(
      names = "--bootstrap-api-key",
      defaultValue = "${env:AGENTAUTH_BOOTSTRAP_API_KEY}",
      description =
          "API key registered for the bootstrap workspace; without one a key is generated and"
              + " printed once. Prefer AGENTAUTH_BOOTSTRAP_API_KEY or --bootstrap-api-key-file.")
  String bootstrapApiKey;

  @Option(
      names = "--bootstrap-api-key-file",
      defaultValue = "${env:AGENTAUTH_BOOTSTRAP_API_KEY_FILE}",
      description = "File holding the bootstrap API key (surrounding whitespace is ignored).")
  String bootstrapApiKeyFile;

  // ---- connections and request timing (ConnectionLimits)

  @Option(
      names = "--max-connections",
      defaultValue = "${env:AGENTAUTH_MAX_CONNECTIONS:-10000}",
      description =
          "Connections open at once; one beyond it is closed when accepted (default"
              + " ${DEFAULT-VALUE}). Keep it below the process's file limit (ulimit -n).")
  int maxConnections;

  @Option(
      names = "--max-connections-per-address",
      defaultValue = "${env:AGENTAUTH_MAX_CONNECTIONS_PER_ADDRESS:-64}",
      description =
          "Connections open at once from one client address; a connection beyond it is closed"
              + " when accepted (default ${DEFAULT-VALUE}). 0 = no limit: set it behind a reverse"
              + " proxy, where every client has the proxy's address.")
  int maxConnectionsPerAddress;

  @Option(
      names = "--idle-timeout",
      defaultValue = "${env:AGENTAUTH_IDLE_TIMEOUT:-30}",
      description =
          "Seconds a connection may send nothing (between requests, or inside one) before it is"
              + " closed (default ${DEFAULT-VALUE}).")
  int idleTimeoutSeconds;

  @Option(
      names = "--header-timeout",
      defaultValue = "${env:AGENTAUTH_HEADER_TIMEOUT:-10}",
      description =
          "Seconds a new connection may take to send its first complete request head before it is"
              + " closed (default ${DEFAULT-VALUE}).")
  int headerTimeoutSeconds;

  @Option(
      names = "--body-timeout",
      defaultValue = "${env:AGENTAUTH_BODY_TIMEOUT:-10}",
      description =
          "Seconds a request body may take to arrive; then 408 request_timeout (default"
              + " ${DEFAULT-VALUE}).")
  int bodyTimeoutSeconds;

  @Option(
      names = "--min-body-rate",
      defaultValue = "${env:AGENTAUTH_MIN_BODY_RATE:-1024}",
      description =
          "Least average rate, in bytes a second, of a request body after its first 2 s; slower is"
              + " 408 request_timeout (default ${DEFAULT-VALUE}; 0 = none).")
  long minBodyRate;

  // ----

  // ---- memory store bound (issue 25 item 8)

  @Option(
      names = "--memory-store-max-bytes",
      defaultValue = "${env:AGENTAUTH_MEMORY_STORE_MAX_BYTES:-0}",
      description =
          "With --store memory: the estimated bytes of receipts, idempotency records, nonces,"
              + " escalations and webhook deliveries kept before the oldest are evicted (gone for"
              + " good); 0 = a quarter of the maximum heap (default).")
  long memoryStoreMaxBytes;

  @Spec CommandSpec spec;

  /** The exit code when the store cannot be opened. */
  private int exit = 2;

  public static void main(String[] args) {
    // Before anything else: from now on an OutOfMemoryError in any thread ends the process.
    FatalErrorPolicy.halting().install();
    int code = new CommandLine(new ServerMain()).execute(args);
    if (code != 0) {
      System.exit(code);
    }
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter err = new PrintWriter(System.err, true);
    try {
      adminToken = secret("--admin-token", adminToken, "--admin-token-file", adminTokenFile, err);
      metricsToken =
          secret("--metrics-token", metricsToken, "--metrics-token-file", metricsTokenFile, err);
      bootstrapApiKey =
          secret(
              "--bootstrap-api-key",
              bootstrapApiKey,
              "--bootstrap-api-key-file",
              bootstrapApiKeyFile,
              err);
    } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
      err.println("agentauth-server: " + e.getMessage());
      return 2;
    }
    Store backing = openStore(store, err);
    if (backing == null) {
      return exit;
    }
    if (!"free".equals(bootstrapPlan) && !"pro".equals(bootstrapPlan)) {
      err.println("agentauth-server: --bootstrap-plan must be free or pro, got " + bootstrapPlan);
      return 2;
    }
    AgentAuthServer server;
    try {
      server = configure(backing).build().start();
    } catch (IllegalArgumentException e) {
      err.println("agentauth-server: " + e.getMessage());
      backing.close();
      return 2;
    } catch (RuntimeException e) {
      err.println("agentauth-server: could not start: " + e.getMessage());
      backing.close();
      return 1;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  int exit = 0;
                  try {
                    server.close();
                  } catch (RuntimeException e) {
                    err.println("agentauth-server: shutdown failed: " + e);
                    exit = 1;
                  }
                  stopped.countDown();
                  System.out.flush();
                  err.flush();
                  // A JVM stopped by a signal exits 128 + signal (143 for SIGTERM) once its hooks
                  // finish; a clean drain is a successful run, so report 0 instead.
                  Runtime.getRuntime().halt(exit);
                },
                "agentauth-shutdown"));
    if (server.apiKeyGenerated()) {
      System.out.println(
          "workspace " + server.workspaceId() + " api key (shown once): " + server.apiKey());
    }
    System.out.println("agentauth-server listening on " + server.baseUrl());
    System.out.flush();
    stopped.await();
    return 0;
  }

  /**
   * A secret given directly ({@code option}) or in a file ({@code fileOption}); warns, never naming
   * the value, when it was typed on the command line, where {@code ps} shows it to every local
   * user.
   */
  private String secret(
      String option, String value, String fileOption, String file, PrintWriter err) {
    boolean direct = value != null && !value.isBlank();
    boolean fromFile = file != null && !file.isBlank();
    if (direct && fromFile) {
      throw new IllegalArgumentException(
          "give " + option + " or " + fileOption + " (or their variables), not both");
    }
    if (fromFile) {
      Path path = Path.of(file);
      warnIfReadableByOthers(path, fileOption, err);
      try {
        String text = java.nio.file.Files.readString(path).strip();
        if (text.isEmpty()) {
          throw new IllegalArgumentException(fileOption + " " + file + " is empty");
        }
        return text;
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(
            "cannot read " + fileOption + " " + file + ": " + e, e);
      }
    }
    if (direct && spec != null && spec.commandLine().getParseResult().hasMatchedOption(option)) {
      err.println(
          "agentauth-server: WARNING: "
              + option
              + " was given on the command line, which every local user can read (ps);"
              + " pass it in AGENTAUTH_"
              + option.substring(2).toUpperCase(java.util.Locale.ROOT).replace('-', '_')
              + " or "
              + fileOption
              + " instead");
    }
    return value;
  }

  /** Warns when a file holding a secret can be read by its group or by others. */
  static void warnIfReadableByOthers(Path file, String what, PrintWriter err) {
    java.util.Set<java.nio.file.attribute.PosixFilePermission> perms;
    try {
      perms = java.nio.file.Files.getPosixFilePermissions(file);
    } catch (UnsupportedOperationException | java.io.IOException e) {
      return; // not a POSIX file system, or missing: reading it reports that
    }
    if (perms.contains(java.nio.file.attribute.PosixFilePermission.GROUP_READ)
        || perms.contains(java.nio.file.attribute.PosixFilePermission.OTHERS_READ)) {
      err.println(
          "agentauth-server: WARNING: "
              + what
              + " "
              + file
              + " is readable by other users ("
              + java.nio.file.attribute.PosixFilePermissions.toString(perms)
              + "); make it owner-only: chmod 600 "
              + file);
    }
  }

  /** A builder from the options; throws IllegalArgumentException for an invalid value. */
  private AgentAuthServer.Builder configure(Store backing) {
    AgentAuthServer.Builder b =
        AgentAuthServer.builder()
            .host(host)
            .port(port)
            .store(backing)
            .rateLimit(rateLimit)
            .maxApiKeysPerWorkspace(maxApiKeysPerWorkspace)
            .receiptGate(
                new ReceiptGate.Limits(
                    checksInFlight,
                    checksQueuedPerWorkspace,
                    checksQueuedBytesPerWorkspace,
                    checksQueuedBytes,
                    seconds("--checks-queue-timeout", checksQueueTimeoutSeconds)))
            .signingLimits(
                new SigningService.Limits(
                    SigningService.Limits.DEFAULT.queued(),
                    SigningService.Limits.DEFAULT.queuedBytes(),
                    signingBacklog,
                    signingBacklogPerWorkspace,
                    signingWaitsPerWorkspace,
                    signingWaits))
            .workspace(bootstrapWorkspace, bootstrapPlan)
            .connectionLimits(
                new ConnectionLimits(
                    maxConnections,
                    maxConnectionsPerAddress,
                    seconds("--idle-timeout", idleTimeoutSeconds),
                    seconds("--header-timeout", headerTimeoutSeconds),
                    seconds("--body-timeout", bodyTimeoutSeconds),
                    minBodyRate))
            .receiptQuotas(
                new ReceiptQuotas.Limits(
                    new ReceiptQuotas.Quota(quotaFreeReceipts, quotaFreeBytes),
                    new ReceiptQuotas.Quota(quotaProReceipts, quotaProBytes)));
    b.clock(testClock ? TestClock.startingNow() : Clock.systemUTC());
    if (adminToken != null && !adminToken.isBlank()) {
      b.adminToken(adminToken);
    }
    if (metricsToken != null && !metricsToken.isBlank()) {
      b.metricsToken(metricsToken);
    }
    b.console(console);
    if (publicUrl != null && !publicUrl.isBlank()) {
      b.publicUrl(publicUrl);
    }
    b.webhooksAllowLoopback(webhooksAllowLoopback);
    if (webhookRetentionDays < 1 || webhookRetentionDays > 3650) {
      throw new IllegalArgumentException(
          "--webhook-retention-days must be 1 to 3650, got " + webhookRetentionDays);
    }
    b.webhookSettings(
        DeliveryWorker.Settings.DEFAULT.withRetention(Duration.ofDays(webhookRetentionDays)));
    if (bootstrapApiKey != null && !bootstrapApiKey.isBlank()) {
      b.apiKey(bootstrapApiKey);
    }
    return b;
  }

  private static Duration seconds(String option, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(option + " must be at least 1 (seconds), got " + value);
    }
    return Duration.ofSeconds(value);
  }

  /** Opens the store {@code --store} names; null (after saying why) when it cannot. */
  private Store openStore(String spec, PrintWriter err) {
    if ("memory".equals(spec)) {
      if (memoryStoreMaxBytes < 0) {
        err.println(
            "agentauth-server: --memory-store-max-bytes must be 0 (a quarter of the heap) or"
                + " positive, got "
                + memoryStoreMaxBytes);
        return null;
      }
      MemoryStore memory =
          memoryStoreMaxBytes == 0 ? new MemoryStore() : new MemoryStore(memoryStoreMaxBytes);
      err.println(
          "agentauth-server: the memory store keeps at most "
              + (memory.maxBytes() >> 20)
              + " MiB of receipts and other records of checks, evicting the oldest (gone for"
              + " good), and loses everything on exit: it is for tests and demos.");
      return memory;
    }
    try {
      if (spec.startsWith("sqlite:") && spec.length() > "sqlite:".length()) {
        Path db = Path.of(spec.substring("sqlite:".length()));
        MasterKey key;
        if (masterKeyFile == null || masterKeyFile.isBlank()) {
          Path file = db.toAbsolutePath().normalize().resolveSibling("master.key");
          MasterKey.Loaded loaded = MasterKey.loadOrCreate(file);
          if (loaded.created()) {
            err.println(
                "agentauth-server: WARNING: generated a master key in "
                    + file
                    + " (owner-only). It encrypts the signing keys in "
                    + db
                    + ": back it up with the database, or pass --master-key-file to keep it"
                    + " elsewhere.");
          }
          key = loaded.key();
          warnIfReadableByOthers(file, "the master key file", err);
        } else {
          warnIfReadableByOthers(Path.of(masterKeyFile), "--master-key-file", err);
          key = MasterKey.fromFile(Path.of(masterKeyFile));
        }
        return openOrReport(() -> JdbcStore.sqlite(db, key), err);
      }
      if (spec.startsWith("postgres:jdbc:postgresql:")) {
        if (masterKeyFile == null || masterKeyFile.isBlank()) {
          err.println(
              "agentauth-server: --store postgres: needs --master-key-file"
                  + " (AGENTAUTH_MASTER_KEY_FILE): every instance sharing the database must use"
                  + " the same key, e.g. one made with `head -c 32 /dev/urandom | base64 > FILE`");
          exit = 2;
          return null;
        }
        warnIfReadableByOthers(Path.of(masterKeyFile), "--master-key-file", err);
        MasterKey key = MasterKey.fromFile(Path.of(masterKeyFile));
        String url = spec.substring("postgres:".length());
        return openOrReport(() -> JdbcStore.postgres(url, key), err);
      }
    } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
      err.println("agentauth-server: " + e.getMessage());
      exit = 2;
      return null;
    }
    err.println(
        "agentauth-server: --store must be sqlite:PATH, postgres:JDBC_URL"
            + " (postgres:jdbc:postgresql://HOST:PORT/DB?user=...) or memory, got "
            + spec);
    exit = 2;
    return null;
  }

  private Store openOrReport(java.util.function.Supplier<Store> open, PrintWriter err) {
    try {
      return open.get();
    } catch (StoreException e) {
      err.println("agentauth-server: could not open the store: " + e.getMessage());
      exit = 1;
      return null;
    }
  }

  /** Reports the implementation version of the jar. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = ServerMain.class.getPackage().getImplementationVersion();
      return new String[] {"agentauth-server " + (v == null ? "dev" : v)};
    }
  }
}
