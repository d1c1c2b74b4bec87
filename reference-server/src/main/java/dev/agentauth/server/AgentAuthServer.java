package dev.agentauth.server;

import dev.agentauth.model.CreateApiKeyRequest;
import dev.agentauth.server.fatal.FatalErrorPolicy;
import dev.agentauth.server.fatal.FatalErrors;
import dev.agentauth.server.http.Api;
import dev.agentauth.server.http.ConnectionLimits;
import dev.agentauth.server.http.ConsoleFiles;
import dev.agentauth.server.http.ProblemErrorHandler;
import dev.agentauth.server.http.ReceiptGate;
import dev.agentauth.server.log.CheckpointSigner;
import dev.agentauth.server.log.LogIntegrator;
import dev.agentauth.server.log.LogOps;
import dev.agentauth.server.log.Witnesses;
import dev.agentauth.server.service.ApiKeyOps;
import dev.agentauth.server.service.ReceiptOps;
import dev.agentauth.server.service.ReceiptQuotas;
import dev.agentauth.server.service.ServiceContext;
import dev.agentauth.server.service.WebhookOps;
import dev.agentauth.server.service.WebhookTargets;
import dev.agentauth.server.service.WorkspaceOps;
import dev.agentauth.server.signing.SigningService;
import dev.agentauth.server.store.MemoryStore;
import dev.agentauth.server.store.Store;
import dev.agentauth.server.webhook.DeliveryMetrics;
import dev.agentauth.server.webhook.DeliveryWorker;
import io.javalin.Javalin;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agentauth reference server, embeddable in tests and applications.
 *
 * <pre>{@code
 * try (AgentAuthServer server = AgentAuthServer.builder().port(0).build().start()) {
 *   String baseUrl = server.baseUrl();     // http://127.0.0.1:54321
 *   String apiKey = server.apiKey();       // sk_... for server.workspaceId()
 *   ...
 * }
 * }</pre>
 *
 * <p>By default it listens on a free loopback port, keeps everything in memory, and bootstraps a
 * {@code pro} workspace {@code ws_local} with a fresh API key. {@link #close()} stops accepting
 * requests, finishes those in flight, signs every pending receipt and closes the store.
 */
public final class AgentAuthServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AgentAuthServer.class);
  private static final int DEFAULT_REQUEST_THREADS = 250;
  private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration SHUTDOWN_IDLE_TIMEOUT = Duration.ofMillis(100);

  /**
   * How often revocations made by other instances are picked up (and key uses recorded): well
   * inside the one second decisions.md §15 allows.
   */
  private static final Duration API_KEY_REFRESH = Duration.ofMillis(250);

  private final Builder config;
  private final Store store;
  private final Clock clock;
  private final PrometheusMeterRegistry metrics =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final SigningService signer;
  private final ServiceContext ctx;
  private final WorkspaceOps workspaces;
  private final ApiKeyOps apiKeys;
  private final WebhookTargets webhookTargets;
  private final DeliveryWorker webhookWorker;
  private final CheckpointSigner checkpointSigner;
  private final LogIntegrator logIntegrator;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile Api api;
  private final ScheduledExecutorService housekeeping = daemonScheduler("agentauth-housekeeping");
  // Its own thread: a revocation on another instance must reach this one within a second, whatever
  // the signer's sweep on the housekeeping thread is doing.
  private final ScheduledExecutorService apiKeyRefresh = daemonScheduler("agentauth-api-keys");
  // Its own thread: the flush writes through the store's writer, which a busy server may hold a
  // while; the signer's sweep should not wait behind it.
  private final ScheduledExecutorService quotaFlush = daemonScheduler("agentauth-quotas");
  private Javalin app;
  private String baseUrl;
  private volatile String baseUrlForReceipts;
  private String apiKey;

  private AgentAuthServer(Builder b) {
    this.config = b;
    this.store = b.store != null ? b.store : new MemoryStore();
    this.clock = b.clock != null ? b.clock : Clock.systemUTC();
    DistributionSummary lag = Api.lagSummary(metrics);
    this.signer =
        new SigningService(store, clock, nanos -> lag.record(nanos / 1e9), b.signingLimits);
    this.ctx =
        new ServiceContext(
            store,
            clock,
            signer,
            b.receiptQuotas,
            b.publicUrl != null ? stripSlash(b.publicUrl) : null);
    this.workspaces = new WorkspaceOps(ctx);
    this.apiKeys = new ApiKeyOps(ctx, b.maxApiKeysPerWorkspace, ApiKeyOps.CACHE_SIZE);
    this.apiKey = b.apiKey;
    this.webhookTargets = new WebhookTargets(b.webhooksAllowLoopback);
    this.webhookWorker =
        new DeliveryWorker(
            store,
            ctx::now,
            Clock.systemUTC(),
            ctx.webhookEvents(),
            webhookTargets,
            b.webhookSettings,
            new DeliveryMetrics(metrics));
    this.checkpointSigner = new CheckpointSigner(() -> baseUrlForReceipts);
    DistributionSummary logLag =
        DistributionSummary.builder("agentauth_log_lag_seconds")
            .description(
                "time from a receipt's signature (as this instance learned of it) to its place in"
                    + " the workspace's log, over the last 30 to 40 seconds")
            .publishPercentiles(0.5, 0.99)
            .distributionStatisticExpiry(Duration.ofSeconds(40))
            .distributionStatisticBufferLength(4)
            .register(metrics);
    this.logIntegrator =
        new LogIntegrator(
            store, ctx::now, Clock.systemUTC(), checkpointSigner, n -> logLag.record(n / 1e9));
    signer.onSigned(logIntegrator::wake);
  }

  /** Deletes idempotency records past their 24-hour replay window. */
  private void purgeIdempotency() {
    try {
      int n = store.inTransaction(tx -> tx.purgeIdempotency(ctx.now().minus(Duration.ofHours(24))));
      if (n > 0) {
        log.debug("purged {} expired idempotency records", n);
      }
    } catch (RuntimeException e) {
      log.warn("purging expired idempotency records failed; will retry", e);
    }
  }

  /**
   * Writes the receipt counts of the last second, so that a restart (or another instance) sees
   * them. A failed write keeps them in memory for the next one.
   */
  private void flushQuotas() {
    try {
      ctx.quotas().flush();
    } catch (RuntimeException e) {
      log.warn(
          "writing the receipt quota counts failed ({}); they are written at the next flush,"
              + " unless the server is stopping",
          e.toString());
    }
  }

  /**
   * Quota metrics, without a label per workspace (workspaces are many): today's receipts and bytes
   * of all workspaces, and the requests refused for each quota.
   */
  private void registerQuotaMetrics() {
    ReceiptQuotas q = ctx.quotas();
    Gauge.builder("agentauth_quota_receipts_today", q, ReceiptQuotas::receiptsToday)
        .description("Receipts stored today (UTC) by all workspaces, as counted for the quotas")
        .register(metrics);
    Gauge.builder("agentauth_quota_bytes_today", q, ReceiptQuotas::bytesToday)
        .description(
            "Receipt bytes stored today (UTC) by all workspaces, as counted for the quotas")
        .register(metrics);
    FunctionCounter.builder("agentauth_quota_refusals", q, ReceiptQuotas::refusedForReceipts)
        .tag("quota", "receipts")
        .description("Requests refused 429 quota_exceeded, by the quota the workspace had used")
        .register(metrics);
    FunctionCounter.builder("agentauth_quota_refusals", q, ReceiptQuotas::refusedForBytes)
        .tag("quota", "bytes")
        .description("Requests refused 429 quota_exceeded, by the quota the workspace had used")
        .register(metrics);
  }

  /** A builder with the embedded defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Bootstraps the workspace, resumes signing, and starts listening.
   *
   * @return this server, started
   * @throws IllegalStateException if it was started before
   */
  public synchronized AgentAuthServer start() {
    if (app != null) {
      throw new IllegalStateException("server already started");
    }
    if (config.exitOnFatalError) {
      FatalErrorPolicy.halting().install();
    }
    bootstrap();
    ctx.quotas().start();
    signer.start();
    webhookWorker.start();
    quotaFlush.scheduleWithFixedDelay(guarded(this::flushQuotas), 1, 1, TimeUnit.SECONDS);
    housekeeping.scheduleWithFixedDelay(guarded(this::purgeIdempotency), 10, 10, TimeUnit.MINUTES);
    housekeeping.scheduleWithFixedDelay(guarded(signer::sweep), 1, 1, TimeUnit.SECONDS);
    apiKeyRefresh.scheduleWithFixedDelay(
        guarded(apiKeys::refresh),
        API_KEY_REFRESH.toMillis(),
        API_KEY_REFRESH.toMillis(),
        TimeUnit.MILLISECONDS);
    Gauge.builder("agentauth_signing_backlog", signer, SigningService::backlog)
        .description("Pending receipts in the store, as the signer counts them")
        .register(metrics);
    Gauge.builder("agentauth_signing_queued", signer, SigningService::queued)
        .description("Pending receipts the signer holds in memory")
        .register(metrics);
    Gauge.builder(
            "agentauth_signing_oldest_pending_seconds",
            signer,
            SigningService::oldestPendingSeconds)
        .description("Age of the oldest pending receipt in the store, as of the last sweep")
        .register(metrics);
    Gauge.builder("agentauth_signing_workspaces", signer, SigningService::workspacesPending)
        .description("Workspaces with receipts waiting to be signed")
        .register(metrics);
    Gauge.builder("agentauth_signing_waiting_requests", signer, SigningService::waiting)
        .description("Requests waiting for their receipts' signatures (wait=true)")
        .register(metrics);
    FunctionCounter.builder("agentauth_receipts_signed", signer, SigningService::signedTotal)
        .description("Receipts whose signature this process stored")
        .register(metrics);
    registerQuotaMetrics();
    if (store instanceof MemoryStore memory) {
      Gauge.builder("agentauth_memory_store_bytes", memory, MemoryStore::heldBytes)
          .description("Estimated bytes of the records of checks the memory store holds")
          .register(metrics);
      Gauge.builder("agentauth_memory_store_max_bytes", memory, MemoryStore::maxBytes)
          .description("The memory store's bound; past it the oldest records are evicted")
          .register(metrics);
      FunctionCounter.builder(
              "agentauth_memory_store_evicted_receipts", memory, MemoryStore::evictedReceipts)
          .description("Receipts the memory store evicted (gone for good)")
          .register(metrics);
      FunctionCounter.builder(
              "agentauth_memory_store_evicted_records", memory, MemoryStore::evictedRecords)
          .description(
              "Records the memory store evicted: receipts, idempotency records, nonces, escalations")
          .register(metrics);
    }
    AtomicReference<Server> jetty = new AtomicReference<>();
    TestClock testClock = config.testClock && clock instanceof TestClock t ? t : null;
    ReceiptOps receipts = new ReceiptOps(ctx, () -> baseUrlForReceipts);
    QueuedThreadPool requestThreads = requestThreads(config.requestThreads);
    api =
        new Api(
            ctx,
            new Api.Settings(
                config.adminToken,
                config.metricsToken,
                testClock,
                config.rateLimit,
                config.receiptGate),
            workspaces,
            apiKeys,
            receipts,
            new WebhookOps(ctx, webhookTargets),
            new LogOps(),
            new Witnesses(store, checkpointSigner, Clock.systemUTC()),
            metrics,
            requestThreads);
    app =
        Javalin.create(
            cfg -> {
              cfg.jetty.host = config.host;
              cfg.jetty.port = config.port;
              cfg.jetty.threadPool = requestThreads;
              // Graceful stop: close the connector, then wait for in-flight requests (a check with
              // wait=true takes at most 5 s) before tearing down. Javalin attaches its servlet
              // handler inside this wrapper.
              cfg.jetty.modifyServer(
                  server -> {
                    GracefulHandler graceful = new GracefulHandler();
                    // Javalin attaches its servlet handler inside the innermost wrapper: this one.
                    graceful.setHandler(config.connectionLimits.bodyDeadline());
                    server.setHandler(graceful);
                    server.setStopTimeout(DRAIN_TIMEOUT.toMillis());
                    jetty.set(server);
                  });
              ProblemErrorHandler.install(cfg.jetty);
              api.configure(cfg);
              if (config.console) {
                ConsoleFiles.register(cfg.routes);
              }
            });
    app.start();
    // Idle keep-alive connections would otherwise hold a graceful stop for a whole second.
    for (Connector connector : jetty.get().getConnectors()) {
      if (connector instanceof AbstractConnector c) {
        c.setShutdownIdleTimeout(SHUTDOWN_IDLE_TIMEOUT.toMillis());
      }
    }
    config.connectionLimits.install(jetty.get());
    baseUrl = "http://" + hostForUrl(config.host) + ":" + app.port();
    if (config.metricsToken == null && !isLoopback(config.host)) {
      log.warn(
          "listening on {} without a metrics token: GET /metrics is public to anyone who can reach"
              + " this port; set --metrics-token (AGENTAUTH_METRICS_TOKEN) to require one",
          config.host);
    }
    baseUrlForReceipts = config.publicUrl != null ? stripSlash(config.publicUrl) : baseUrl;
    FunctionCounter.builder(
            "agentauth_log_integrated", logIntegrator, LogIntegrator::integratedTotal)
        .description("Signed receipts this process appended to their workspace's log")
        .register(metrics);
    Gauge.builder(
            "agentauth_log_workspaces_waiting", logIntegrator, LogIntegrator::workspacesWaiting)
        .description("Workspaces with signed receipts known to wait for their log")
        .register(metrics);
    logIntegrator.start();
    return this;
  }

  /**
   * Jetty's request threads, as Javalin makes them (8 to 250, "JettyServerThreadPool"), except that
   * a fatal error a job of theirs throws reaches the fatal-error policy instead of only Jetty's
   * log.
   */
  private static QueuedThreadPool requestThreads(int max) {
    QueuedThreadPool pool =
        new QueuedThreadPool(max, Math.min(8, max), 60_000) {
          @Override
          protected void onJobFailure(Throwable error) {
            super.onJobFailure(error);
            FatalErrors.report(error);
          }
        };
    pool.setName("JettyServerThreadPool");
    return pool;
  }

  /**
   * A periodic task that survives whatever it throws: an Error escaping a scheduled task would
   * cancel every later run without a word.
   */
  /** A single daemon thread named {@code name} for periodic tasks. */
  private static ScheduledExecutorService daemonScheduler(String name) {
    return Executors.newSingleThreadScheduledExecutor(
        r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          return t;
        });
  }

  private static Runnable guarded(Runnable task) {
    return () -> {
      try {
        task.run();
      } catch (Throwable e) {
        log.error("housekeeping task failed; it runs again at its next turn", e);
        FatalErrors.report(e);
      }
    };
  }

  private static String hostForUrl(String host) {
    if (host.equals("0.0.0.0")) {
      return "127.0.0.1";
    }
    return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
  }

  /** Whether {@code host} names only this machine (a loopback name or address). */
  public static boolean isLoopback(String host) {
    String h =
        host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    if (h.equalsIgnoreCase("localhost")) {
      return true;
    }
    try {
      return java.net.InetAddress.getByName(h).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }

  private static String stripSlash(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }

  private void bootstrap() {
    String ws = config.workspaceId;
    store.inTransaction(
        tx -> {
          if (tx.workspace(ws).isEmpty()) {
            workspaces.createWorkspace(tx, ws, config.plan);
            if (apiKey == null) {
              apiKey =
                  apiKeys.create(tx, ws, new CreateApiKeyRequest(null, null, null, null)).apiKey();
              config.generatedKey = true;
            }
          }
          if (config.apiKey != null) {
            apiKeys.ensure(tx, ws, config.apiKey);
          }
          return null;
        });
  }

  /**
   * Runs the API key refresh now instead of at its next 250 ms turn (tests): revocations by other
   * instances are picked up and recorded uses written before this returns.
   */
  void refreshApiKeys() {
    apiKeys.refresh();
  }

  /** Every endpoint this server answers and who may call it (the route table); after start. */
  public java.util.List<Api.Endpoint> endpoints() {
    if (api == null) {
      throw new IllegalStateException("the server has not started");
    }
    return api.endpoints();
  }

  /** The base URL clients use, e.g. {@code http://127.0.0.1:54321}. */
  public String baseUrl() {
    return baseUrl;
  }

  /** The bound port. */
  public int port() {
    return app.port();
  }

  /** The bootstrapped workspace. */
  public String workspaceId() {
    return config.workspaceId;
  }

  /**
   * The bootstrap API key: the one configured, or the one generated when the workspace was created;
   * null when the workspace already existed and no key was configured.
   */
  public String apiKey() {
    return apiKey;
  }

  /** Whether {@link #apiKey()} was generated by this start (print it once). */
  public boolean apiKeyGenerated() {
    return config.generatedKey;
  }

  /** The server's clock (a {@link TestClock} when one was given). */
  public Clock clock() {
    return clock;
  }

  /** The webhook delivery worker (tests poll it to skip the wait). */
  public DeliveryWorker webhookWorker() {
    return webhookWorker;
  }

  /** The receipt log's integrator (tests drain it to skip the wait). */
  public LogIntegrator logIntegrator() {
    return logIntegrator;
  }

  /** The store behind this server. */
  public Store store() {
    return store;
  }

  /** The gate checks and new authorizations take turns at (tests read its counters). */
  ReceiptGate receiptGate() {
    return api.receiptGate();
  }

  /** Requests waiting for their receipts' signatures now (tests). */
  int signingWaits() {
    return signer.waiting();
  }

  /** Receipts waiting to be signed (see {@link SigningService#backlog()}). */
  public long signingBacklog() {
    return signer.backlog();
  }

  /**
   * Stops accepting requests, lets in-flight requests finish, signs every pending receipt, and
   * closes the store. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (app != null) {
      app.stop();
    }
    if (api != null) {
      api.close();
    }
    housekeeping.shutdownNow();
    apiKeyRefresh.shutdownNow();
    webhookWorker.close();
    // Not interrupted: a flush under way finishes, then the last one writes what is left.
    quotaFlush.shutdown();
    try {
      quotaFlush.awaitTermination(DRAIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    guarded(this::flushQuotas).run();
    signer.drain(DRAIN_TIMEOUT);
    // What is signed but not yet in a log is integrated at the next start (or by another instance).
    logIntegrator.close();
    store.close();
    metrics.close();
    log.debug("agentauth server stopped");
  }

  /** Configures an {@link AgentAuthServer}. Not thread-safe; build once. */
  public static final class Builder {
    private String host = "127.0.0.1";
    private int port = 0;
    private Store store;
    private Clock clock;
    private boolean testClock;
    private String adminToken;
    private String metricsToken;
    private int rateLimit;
    private String publicUrl;
    private boolean console = true;
    private String workspaceId = "ws_local";
    private String plan = "pro";
    private String apiKey;
    private boolean generatedKey;
    private boolean exitOnFatalError;
    private SigningService.Limits signingLimits = SigningService.Limits.DEFAULT;
    private ConnectionLimits connectionLimits = ConnectionLimits.DEFAULT;
    private ReceiptQuotas.Limits receiptQuotas = ReceiptQuotas.Limits.DEFAULT;
    private boolean webhooksAllowLoopback;
    private DeliveryWorker.Settings webhookSettings = DeliveryWorker.Settings.DEFAULT;

    // ---- API key limits
    private int maxApiKeysPerWorkspace = ApiKeyOps.DEFAULT_MAX_KEYS_PER_WORKSPACE;
    private ReceiptGate.Limits receiptGate = ReceiptGate.Limits.DEFAULT;
    private int requestThreads = DEFAULT_REQUEST_THREADS;

    /**
     * How many API keys that are neither revoked nor expired a workspace may hold; creating one
     * more answers 400 until a key is revoked. Default {@value
     * ApiKeyOps#DEFAULT_MAX_KEYS_PER_WORKSPACE}.
     *
     * @throws IllegalArgumentException if {@code max} is below 1 or above 1,000,000
     */
    public Builder maxApiKeysPerWorkspace(int max) {
      if (max < 1 || max > 1_000_000) {
        throw new IllegalArgumentException(
            "max API keys per workspace must be 1 to 1000000, got " + max);
      }
      this.maxApiKeysPerWorkspace = max;
      return this;
    }

    private Builder() {}

    /**
     * Whether a fatal error (an {@link OutOfMemoryError}, see {@link FatalErrors}) anywhere in the
     * JVM halts it with status 3, as {@code -XX:+ExitOnOutOfMemoryError} would; default false. When
     * true, {@code start()} installs a {@link FatalErrorPolicy} as the JVM's default
     * uncaught-exception handler, which affects the whole process: ask for it only when the server
     * owns the JVM (the jar does). When false, the server's threads log a fatal error and go on.
     */
    public Builder exitOnFatalError(boolean exit) {
      this.exitOnFatalError = exit;
      return this;
    }

    /** Interface to bind; default {@code 127.0.0.1}. */
    public Builder host(String host) {
      this.host = Objects.requireNonNull(host, "host");
      return this;
    }

    /** Port to bind; default 0 (any free port). */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be 0 to 65535, got " + port);
      }
      this.port = port;
      return this;
    }

    /** Storage; default a fresh {@link MemoryStore}. */
    public Builder store(Store store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /**
     * The server's clock; default the system UTC clock. A {@link TestClock} also enables {@code
     * POST /admin/v1/clock} when an admin token is set.
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      this.testClock = clock instanceof TestClock;
      return this;
    }

    /** Admin token enabling the admin API; default none (admin API answers 404). */
    public Builder adminToken(String adminToken) {
      this.adminToken = adminToken;
      return this;
    }

    /**
     * Token that {@code GET /metrics} requires as {@code Authorization: Bearer}; default none
     * (metrics are public, and a server bound to a non-loopback interface says so in its log).
     */
    public Builder metricsToken(String metricsToken) {
      this.metricsToken = metricsToken;
      return this;
    }

    /**
     * How the checks and new authorizations of all workspaces take turns: how many run at once
     * (parsed, decided and committed; a {@code wait=true} wait for signatures does not count), and
     * how many, and how many body bytes, may wait for their turn, per workspace and in all, and for
     * how long; default {@link ReceiptGate.Limits#DEFAULT}. See docs/server.md "Limits".
     */
    public Builder receiptGate(ReceiptGate.Limits limits) {
      this.receiptGate = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /**
     * Checks and new authorizations of all workspaces run at once; the others wait for their turn
     * (see {@link #receiptGate}). Default {@value ReceiptGate#DEFAULT_IN_FLIGHT}.
     *
     * @throws IllegalArgumentException if {@code max} is below 1
     */
    public Builder checksInFlight(int max) {
      this.receiptGate = receiptGate.withInFlight(max);
      return this;
    }

    /** Jetty's request threads at most (tests make it small); default 250. */
    Builder requestThreads(int max) {
      if (max < 4) {
        throw new IllegalArgumentException("request threads must be at least 4, got " + max);
      }
      this.requestThreads = max;
      return this;
    }

    /** Requests per second per API key; default 0 = unlimited. */
    public Builder rateLimit(int perSecond) {
      if (perSecond < 0) {
        throw new IllegalArgumentException("rate limit must be >= 0, got " + perSecond);
      }
      this.rateLimit = perSecond;
      return this;
    }

    /** Public base URL used in receipt envelope URLs; default {@code http://host:port}. */
    public Builder publicUrl(String publicUrl) {
      this.publicUrl = publicUrl;
      return this;
    }

    /**
     * Whether to serve the approvers' and auditors' console at {@code /console/} (decisions.md
     * §20); default true.
     */
    public Builder console(boolean console) {
      this.console = console;
      return this;
    }

    /**
     * Workspace created at start if absent; default {@code ws_local} on the {@code pro} plan.
     *
     * @throws IllegalArgumentException if the id is not 1 to 64 characters from {@code A-Z a-z 0-9
     *     _ . : -} or the plan is not {@code free} or {@code pro}
     */
    public Builder workspace(String workspaceId, String plan) {
      Objects.requireNonNull(workspaceId, "workspaceId");
      if (!WorkspaceOps.isValidWorkspaceId(workspaceId)) {
        throw new IllegalArgumentException(
            "workspace id must be 1 to 64 characters from A-Z a-z 0-9 _ . : -, got \""
                + workspaceId
                + "\"");
      }
      this.workspaceId = workspaceId;
      if (!"free".equals(plan) && !"pro".equals(plan)) {
        throw new IllegalArgumentException("plan must be free or pro, got " + plan);
      }
      this.plan = plan;
      return this;
    }

    /** API key registered for the bootstrap workspace; default one is generated. */
    public Builder apiKey(String apiKey) {
      this.apiKey = apiKey;
      return this;
    }

    /**
     * How many pending receipts the signer holds in memory (count and payload bytes), how long a
     * backlog of pending receipts may grow, in all and of one workspace, before checks and new
     * authorizations answer 503, and how many requests may wait for signatures ({@code wait=true})
     * at once, of one workspace and in all; default {@link SigningService.Limits#DEFAULT}.
     */
    public Builder signingLimits(SigningService.Limits limits) {
      this.signingLimits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /**
     * The connections a client may hold and how long a request may take to arrive: connections in
     * all and per client address, idle and request-head timeouts, and the time and minimum rate of
     * a request body; default {@link ConnectionLimits#DEFAULT}.
     */
    public Builder connectionLimits(ConnectionLimits limits) {
      this.connectionLimits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /**
     * Receipts and receipt bytes each workspace may store per UTC day, by plan; default {@link
     * ReceiptQuotas.Limits#DEFAULT}, {@link ReceiptQuotas.Limits#UNLIMITED} for none.
     */
    public Builder receiptQuotas(ReceiptQuotas.Limits limits) {
      this.receiptQuotas = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /**
     * Whether webhooks may point at loopback addresses (and use plain {@code http://} there), for
     * tests and local use; default false: only {@code https://} URLs resolving to public addresses.
     */
    public Builder webhooksAllowLoopback(boolean allow) {
      this.webhooksAllowLoopback = allow;
      return this;
    }

    /**
     * How the webhook delivery worker polls, times out, backs off and gives up, and how long it
     * keeps finished deliveries; default {@link DeliveryWorker.Settings#DEFAULT}.
     */
    public Builder webhookSettings(DeliveryWorker.Settings settings) {
      this.webhookSettings = Objects.requireNonNull(settings, "settings");
      return this;
    }

    /** Whether a store was set (tests use this to supply one when none was). */
    boolean hasStore() {
      return store != null;
    }

    /** Builds an unstarted server. */
    public AgentAuthServer build() {
      return new AgentAuthServer(this);
    }
  }
}
