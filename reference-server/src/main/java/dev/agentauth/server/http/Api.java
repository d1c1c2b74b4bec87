package dev.agentauth.server.http;

import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.server.service.ApiKeyOps;
import dev.agentauth.server.service.Caller;
import dev.agentauth.server.service.ClockControl;
import dev.agentauth.server.service.ErrorCode;
import dev.agentauth.server.service.MutationRunner;
import dev.agentauth.server.service.ReceiptOps;
import dev.agentauth.server.service.ServiceContext;
import dev.agentauth.server.service.ServiceException;
import dev.agentauth.server.service.WebhookOps;
import dev.agentauth.server.service.WorkspaceOps;
import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.server.store.StoreUnavailableException;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP surface, put together: registers the {@link RouteTable}'s rows on Javalin, enforces each
 * row's {@link Route.Access} (API key and its rate limit, or the admin token) before its handler
 * runs, starts every request through the {@link RequestReader}, and maps every failure to
 * problem+json through the {@link ProblemWriter}.
 */
public final class Api {
  private static final Logger log = LoggerFactory.getLogger(Api.class);
  public static final int MAX_BODY = RequestReader.MAX_BODY;

  /**
   * What the admin API's bodies arriving at once are counted under (no workspace id has a space).
   */
  private static final String ADMIN_BODIES = "admin api";

  /** Settings the HTTP layer needs. */
  public record Settings(
      String adminToken,
      String metricsToken,
      ClockControl testClock,
      int rateLimit,
      ReceiptGate.Limits receiptGate) {

    /** Keeps the tokens out of logs. */
    @Override
    public String toString() {
      return "Settings[adminToken="
          + (adminToken == null ? "none" : "<redacted>")
          + ", metricsToken="
          + (metricsToken == null ? "none" : "<redacted>")
          + ", testClock="
          + (testClock != null)
          + ", rateLimit="
          + rateLimit
          + ", receiptGate="
          + receiptGate
          + "]";
    }
  }

  private final Settings settings;
  private final ApiKeyOps apiKeys;
  private final RateLimiter rateLimiter;
  private final RequestReader reader = new RequestReader();
  private final ProblemWriter problems;
  private final List<Route> routes;
  private final PrometheusMeterRegistry metrics;
  private final Map<String, Counter> decisionCounters = new ConcurrentHashMap<>();

  /** Runs the checks and new authorizations that waited for a permit of the receipt gate. */
  private final ThreadPoolExecutor gateWorkers;

  /** Drops works queued too long in the receipt gate. */
  private final ScheduledThreadPoolExecutor gateTimer;

  /**
   * Makes and writes the answers of requests that were suspended (queued, or wait=true): the
   * server's request threads, so that a client slow to read its answer holds one of those, as it
   * would for an answer written inline, and never a small pool every suspended answer shares.
   */
  private final Executor answers;

  private final ReceiptGate gate;

  public Api(
      ServiceContext ctx,
      Settings settings,
      WorkspaceOps workspaces,
      ApiKeyOps apiKeys,
      ReceiptOps receipts,
      WebhookOps webhooks,
      dev.agentauth.server.log.LogOps log,
      dev.agentauth.server.log.Witnesses witnesses,
      PrometheusMeterRegistry metrics,
      Executor answers) {
    this.settings = settings;
    this.apiKeys = apiKeys;
    this.rateLimiter = new RateLimiter(settings.rateLimit());
    this.metrics = metrics;
    this.problems = new ProblemWriter(ctx.mapper());
    MutationRunner runner = new MutationRunner(ctx, receipts, this::countDecisions);
    ResponseWriter writer = new ResponseWriter(runner);
    ReceiptGate.Limits gateLimits = settings.receiptGate();
    this.gateWorkers = pool("agentauth-receipt-work", gateLimits.inFlight());
    this.answers = answers;
    this.gateTimer = new ScheduledThreadPoolExecutor(1, daemon("agentauth-receipt-gate-timer"));
    gateTimer.setRemoveOnCancelPolicy(true);
    Timer gateWait =
        Timer.builder("agentauth_checks_queue_wait_seconds")
            .description(
                "Time checks and new authorizations waited for their turn to run (0 when at once),"
                    + " over the last 30 to 40 seconds")
            .publishPercentiles(0.5, 0.99)
            .distributionStatisticExpiry(Duration.ofSeconds(40))
            .distributionStatisticBufferLength(4)
            .register(metrics);
    this.gate =
        new ReceiptGate(
            gateLimits,
            gateWorkers,
            gateTimer,
            nanos -> gateWait.record(nanos, TimeUnit.NANOSECONDS));
    registerGateMetrics(gate, metrics);
    this.routes =
        RouteTable.routes(
            new HealthHandlers(ctx, problems, metrics),
            new OpenApiDocument(),
            V1Handlers.create(
                ctx, reader, writer, runner, workspaces, apiKeys, receipts, gate, answers),
            new WebhookHandlers(ctx, reader, writer, webhooks),
            new LogHandlers(
                ctx,
                reader,
                writer,
                new WorkspaceLimiter(3, Duration.ofSeconds(1)),
                new RateLimiter(settings.rateLimit()),
                log,
                witnesses),
            new AdminHandlers(ctx, reader, writer, workspaces, apiKeys, settings.testClock()));
  }

  /** A pool of up to {@code threads} daemon threads named {@code name}-N, idle ones ending. */
  private static ThreadPoolExecutor pool(String name, int threads) {
    ThreadPoolExecutor p =
        new ThreadPoolExecutor(
            threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), daemon(name));
    p.allowCoreThreadTimeOut(true);
    return p;
  }

  private static ThreadFactory daemon(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  private static void registerGateMetrics(ReceiptGate gate, PrometheusMeterRegistry metrics) {
    Gauge.builder("agentauth_checks_queued", gate, ReceiptGate::queued)
        .description("Checks and new authorizations waiting for their turn to run")
        .register(metrics);
    Gauge.builder("agentauth_checks_queued_bytes", gate, ReceiptGate::queuedBytes)
        .description("Request-body bytes of the checks and new authorizations waiting to run")
        .register(metrics);
    Gauge.builder("agentauth_checks_in_flight", gate, ReceiptGate::inFlight)
        .description("Checks and new authorizations running (parsing, deciding, committing)")
        .register(metrics);
    FunctionCounter.builder("agentauth_checks_queue_refusals", gate, ReceiptGate::refusedWorkspace)
        .tag("reason", "workspace_queue_full")
        .description("Checks and new authorizations refused by the queue bounds, or dropped")
        .register(metrics);
    FunctionCounter.builder("agentauth_checks_queue_refusals", gate, ReceiptGate::refusedAll)
        .tag("reason", "queued_bytes_full")
        .description("Checks and new authorizations refused by the queue bounds, or dropped")
        .register(metrics);
    FunctionCounter.builder("agentauth_checks_queue_refusals", gate, ReceiptGate::timedOut)
        .tag("reason", "queue_timeout")
        .description("Checks and new authorizations refused by the queue bounds, or dropped")
        .register(metrics);
  }

  /** The receipt gate (tests read its counters). */
  public ReceiptGate receiptGate() {
    return gate;
  }

  /**
   * Stops the threads of the receipt gate; after the HTTP server stopped (every request answered).
   */
  public void close() {
    gateTimer.shutdownNow();
    gateWorkers.shutdown();
  }

  /**
   * One row of the route table as callers see it: method, path, who may call it ({@code PUBLIC},
   * {@code METRICS}, {@code API_KEY} or {@code ADMIN}) and, for {@code API_KEY} rows, the roles
   * that may (wire names, in §15's order).
   */
  public record Endpoint(String method, String path, String access, List<String> roles) {}

  /** The route table: every endpoint this server answers, in the table's order. */
  public List<Endpoint> endpoints() {
    return routes.stream()
        .map(
            r ->
                new Endpoint(
                    r.method().name(),
                    r.path(),
                    r.access().name(),
                    r.roles().stream().sorted().map(ApiKeyRole.Known::wireName).toList()))
        .toList();
  }

  /** Registers every route and the error mapping on a Javalin configuration. */
  public void configure(JavalinConfig config) {
    config.http.maxRequestSize = MAX_BODY;
    config.http.prefer405over404 = true;
    config.startup.showJavalinBanner = false;
    var r = config.routes;
    r.before(reader::start);
    for (Route route : routes) {
      r.addHttpHandler(
          route.method(),
          route.path(),
          c -> {
            Caller caller = access(c, route);
            // Only now, with the caller known, is any of the body read.
            switch (route.access()) {
              case API_KEY -> reader.receive(c, caller.workspaceId());
              case ADMIN -> reader.receive(c, ADMIN_BODIES);
              default -> {
                // A public POST (cosignatures) reads its body itself, after its own checks.
                if (route.method() != io.javalin.http.HandlerType.POST
                    && RequestReader.bodyUnread(c)) {
                  c.header("Connection", "close");
                }
              }
            }
            RequestReader.refuseNulInParameters(c);
            route.handler().handle(c, caller);
          });
    }
    r.exception(ServiceException.class, (e, c) -> problems.write(c, e));
    r.exception(
        HttpResponseException.class, (e, c) -> problems.write(c, ProblemWriter.fromJavalin(e)));
    r.exception(
        StoreUnavailableException.class,
        (e, c) -> {
          log.debug("503 on {} {}: {}", c.method(), c.path(), e.getMessage());
          problems.write(
              c,
              ServiceException.unavailable(
                  "the service is busy; retry after " + e.retryAfterSeconds() + " s",
                  e.retryAfterSeconds()));
        });
    r.exception(
        Exception.class,
        (e, c) -> {
          log.error("unexpected failure on {} {}", c.method(), c.path(), e);
          problems.write(c, ProblemWriter.internal());
        });
    // A suspended request's failure reaches Javalin wrapped; Javalin unwraps an exception itself
    // but
    // hands a wrapped Error here.
    r.exception(
        CompletionException.class,
        (e, c) -> {
          if (e.getCause() instanceof Error err) {
            ProblemWriter.writeError(c.res(), err);
          } else {
            log.error("unexpected failure on {} {}", c.method(), c.path(), e);
            problems.write(c, ProblemWriter.internal());
          }
        });
    // Javalin hands an Error from a handler here, not to the exception handlers above.
    config.router.javaLangErrorHandler(ProblemWriter::writeError);
  }

  /** Checks that the caller may use {@code route}; returns the API key's caller, else null. */
  private Caller access(Context c, Route route) {
    return switch (route.access()) {
      case PUBLIC -> null;
      case METRICS -> {
        if (settings.metricsToken() != null) {
          bearer(c, settings.metricsToken(), "the metrics token", "METRICS_TOKEN");
        }
        yield null;
      }
      case API_KEY -> {
        Caller caller = authenticate(c);
        ApiKeyRole.Known role = caller.knownRole().orElse(null);
        if (role == null || !route.roles().contains(role)) {
          throw ServiceException.of(ErrorCode.FORBIDDEN, forbidden(caller, role, route));
        }
        yield caller;
      }
      case ADMIN -> {
        if (settings.adminToken() == null) {
          throw ServiceException.of(ErrorCode.NOT_FOUND, "no such endpoint");
        }
        bearer(c, settings.adminToken(), "the admin token", "ADMIN_TOKEN");
        yield null;
      }
    };
  }

  private static String forbidden(Caller caller, ApiKeyRole.Known role, Route route) {
    String call = route.method().name() + " " + route.path();
    if (role == null) {
      return "this API key's role \""
          + caller.role().value()
          + "\" is unknown to this server, so it may not call "
          + call
          + SEE_ROLE;
    }
    return "this API key's role is "
        + role.wireName()
        + ", which may not call "
        + call
        + "; the "
        + role.wireName()
        + " role may call "
        + RouteTable.mayCall(role)
        + SEE_ROLE;
  }

  /** Ends a 403's detail: the call every key may make to see its own role. */
  static final String SEE_ROLE = " (GET /v1/api-keys/current shows any key its role)";

  private Caller authenticate(Context c) {
    String header = c.header("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      throw ServiceException.of(
          ErrorCode.UNAUTHENTICATED, "send the API key as Authorization: Bearer <API_KEY>");
    }
    Caller caller = apiKeys.authenticate(header.substring(7).trim());
    if (!rateLimiter.tryAcquire(caller.apiKeyHash())) {
      throw ServiceException.rateLimited(1);
    }
    return caller;
  }

  /** Requires {@code Authorization: Bearer <token>}, compared in constant time. */
  private static void bearer(Context c, String token, String what, String placeholder) {
    String header = c.header("Authorization");
    String expected = "Bearer " + token;
    if (header == null
        || !MessageDigest.isEqual(
            header.getBytes(StandardCharsets.UTF_8), expected.getBytes(StandardCharsets.UTF_8))) {
      throw ServiceException.of(
          ErrorCode.UNAUTHENTICATED,
          "send " + what + " as Authorization: Bearer <" + placeholder + ">");
    }
  }

  private void countDecisions(List<ReceiptRow> receipts) {
    for (ReceiptRow r : receipts) {
      decisionCounters
          .computeIfAbsent(
              r.decision(),
              d -> Counter.builder("agentauth_decisions").tag("decision", d).register(metrics))
          .increment();
    }
  }

  /** Exposes the signing lag summary for the metrics registry wiring. */
  public static DistributionSummary lagSummary(PrometheusMeterRegistry registry) {
    return DistributionSummary.builder("agentauth_signing_lag_seconds")
        .description("time from decision commit to signed receipt, over the last 30 to 40 seconds")
        .publishPercentiles(0.5, 0.99)
        .distributionStatisticExpiry(Duration.ofSeconds(40))
        .distributionStatisticBufferLength(4)
        .register(registry);
  }
}
