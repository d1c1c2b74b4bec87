package dev.agentauth.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.model.BundleRequest;
import dev.agentauth.model.CheckRequest;
import dev.agentauth.model.ClockRequest;
import dev.agentauth.model.ClockResponse;
import dev.agentauth.model.ConfirmationRequest;
import dev.agentauth.model.CreateAuthorizationRequest;
import dev.agentauth.model.CreateWorkspaceRequest;
import dev.agentauth.model.EscalationResolveRequest;
import dev.agentauth.model.FieldError;
import dev.agentauth.model.Problem;
import dev.agentauth.model.ReceiptRef;
import dev.agentauth.model.RevokeAuthorizationRequest;
import dev.agentauth.model.TombstoneRequest;
import dev.agentauth.server.TestClock;
import dev.agentauth.server.engine.CheckInput;
import dev.agentauth.server.fatal.FatalErrors;
import dev.agentauth.server.service.AuthorizationOps;
import dev.agentauth.server.service.BundleOps;
import dev.agentauth.server.service.Caller;
import dev.agentauth.server.service.CheckOps;
import dev.agentauth.server.service.ConfirmationOps;
import dev.agentauth.server.service.EscalationOps;
import dev.agentauth.server.service.Outcome;
import dev.agentauth.server.service.ReceiptOps;
import dev.agentauth.server.service.ServiceContext;
import dev.agentauth.server.service.ServiceException;
import dev.agentauth.server.service.TombstoneOps;
import dev.agentauth.server.service.Validation;
import dev.agentauth.server.service.WorkspaceOps;
import dev.agentauth.server.store.IdempotencyRow;
import dev.agentauth.server.store.ReceiptFilter;
import dev.agentauth.server.store.ReceiptRow;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP surface: routes, authentication, request ids, idempotency, rate limits, body limits,
 * {@code wait=true}, and problem+json errors. Handlers parse and validate input, then run one
 * operation inside one store transaction; they decide nothing themselves.
 */
public final class Api {
  private static final Logger log = LoggerFactory.getLogger(Api.class);
  public static final int MAX_BODY = 1024 * 1024;

  /**
   * How much of an oversized body is still read and thrown away before the 413 is sent. A server
   * that answers and closes while the client is still sending makes the client's TCP stack see a
   * reset, and most clients then report a dropped connection instead of the 413. Bodies up to this
   * size are drained so the answer arrives; larger ones are answered at once with {@code
   * Connection: close}.
   */
  static final long DRAIN_LIMIT = 8L * MAX_BODY;

  private static final String JSON = "application/json";
  private static final String PROBLEM = "application/problem+json";
  private static final Pattern REQUEST_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
  private static final Duration WAIT = Duration.ofSeconds(5);
  private static final Duration IDEMPOTENCY_TTL = Duration.ofHours(24);
  private static final Set<String> EVENTS =
      Set.of("authorization.create", "authorization.revoke", "escalation.resolve");
  private static final Set<String> DECISIONS =
      Set.of(
          "allow",
          "deny",
          "confirm",
          "escalate",
          "authorization_granted",
          "authorization_revoked",
          "escalation_approved",
          "escalation_rejected");

  /** Settings the HTTP layer needs. */
  public record Settings(String adminToken, TestClock testClock, int rateLimit) {}

  private final ServiceContext ctx;
  private final Settings settings;
  private final ObjectMapper strict = AgentAuthJson.newStrictObjectMapper();
  private final ObjectMapper writer;
  private final WorkspaceOps workspaces;
  private final AuthorizationOps authorizations;
  private final CheckOps checks;
  private final ConfirmationOps confirmations;
  private final EscalationOps escalations;
  private final BundleOps bundles;
  private final TombstoneOps tombstones;
  private final ReceiptOps receipts;
  private final RateLimiter rateLimiter;

  /**
   * Reads in flight per workspace: 3, so that one workspace leaves SQLite's 4 readers one; 32 more
   * may wait up to 1 s, so that one workspace parks at most 35 of the 250 request threads.
   */
  private final ReadLimiter readLimiter = new ReadLimiter(3, java.time.Duration.ofSeconds(1));

  private final PrometheusMeterRegistry metrics;
  private final Map<String, Counter> decisionCounters =
      new java.util.concurrent.ConcurrentHashMap<>();

  public Api(
      ServiceContext ctx,
      Settings settings,
      WorkspaceOps workspaces,
      ReceiptOps receipts,
      PrometheusMeterRegistry metrics) {
    this.ctx = ctx;
    this.settings = settings;
    this.writer = ctx.mapper();
    this.workspaces = workspaces;
    this.authorizations = new AuthorizationOps(ctx);
    this.checks = new CheckOps(ctx);
    this.confirmations = new ConfirmationOps(ctx);
    this.escalations = new EscalationOps(ctx);
    this.bundles = new BundleOps(ctx);
    this.tombstones = new TombstoneOps(ctx);
    this.receipts = receipts;
    this.rateLimiter = new RateLimiter(settings.rateLimit());
    this.metrics = metrics;
  }

  /** Registers every route and handler on a Javalin configuration. */
  public void configure(JavalinConfig config) {
    config.http.maxRequestSize = MAX_BODY;
    config.http.prefer405over404 = true;
    config.startup.showJavalinBanner = false;
    var r = config.routes;
    r.before(this::before);
    r.get("/healthz", this::health);
    r.get("/readyz", this::ready);
    r.get(
        "/metrics",
        c -> c.contentType("text/plain; version=0.0.4; charset=utf-8").result(metrics.scrape()));

    r.post("/v1/authorizations", this::createAuthorization);
    r.get(
        "/v1/authorizations",
        c ->
            read(
                c,
                (tx, caller) ->
                    authorizations.list(
                        tx,
                        caller,
                        c.queryParam("user_id"),
                        c.queryParam("agent_id"),
                        c.queryParam("status"),
                        c.queryParam("cursor"),
                        limit(c))));
    r.get(
        "/v1/authorizations/{id}",
        c -> read(c, (tx, caller) -> authorizations.get(tx, caller, c.pathParam("id"))));
    r.delete("/v1/authorizations/{id}", this::revokeAuthorization);

    r.post("/v1/check", this::check);
    r.post("/v1/confirmations/{nonce}", this::confirm);

    r.post("/v1/escalations/{id}/resolve", this::resolveEscalation);
    r.get(
        "/v1/escalations",
        c ->
            read(
                c,
                (tx, caller) ->
                    escalations.list(
                        tx, caller, c.queryParam("status"), c.queryParam("cursor"), limit(c))));
    r.get(
        "/v1/escalations/{id}",
        c -> read(c, (tx, caller) -> escalations.get(tx, caller, c.pathParam("id"))));

    r.post("/v1/agent-scope-bundles", this::createBundle);
    r.get(
        "/v1/agent-scope-bundles",
        c -> read(c, (tx, caller) -> bundles.list(tx, caller, c.queryParam("cursor"), limit(c))));
    r.get(
        "/v1/agent-scope-bundles/{id}",
        c -> read(c, (tx, caller) -> bundles.get(tx, caller, c.pathParam("id"))));
    r.put("/v1/agent-scope-bundles/{id}", this::editBundle);
    r.delete(
        "/v1/agent-scope-bundles/{id}",
        c -> {
          Caller caller = authenticate(c);
          RequestBody.parse(strict, body(c), EmptyBody.class, true);
          mutate(c, caller, tx -> bundles.delete(tx, caller, c.pathParam("id")));
        });

    r.post("/v1/tombstones", this::createTombstone);
    r.get(
        "/v1/tombstones",
        c ->
            read(c, (tx, caller) -> tombstones.list(tx, caller, c.queryParam("cursor"), limit(c))));

    r.get("/v1/receipts", this::listReceipts);
    r.get(
        "/v1/receipts/{id}",
        c -> read(c, (tx, caller) -> receipts.get(tx, caller, c.pathParam("id"))));

    r.get(
        "/v1/workspaces/{id}/keys",
        c ->
            render(
                c,
                Outcome.of(200, ctx.store().read(tx -> workspaces.keys(tx, c.pathParam("id"))))));

    r.post("/admin/v1/workspaces", this::adminCreateWorkspace);
    r.post(
        "/admin/v1/workspaces/{id}/api-keys",
        c -> {
          admin(c);
          render(
              c,
              Outcome.of(
                  201,
                  ctx.store().inTransaction(tx -> workspaces.issueApiKey(tx, c.pathParam("id")))));
        });
    r.post(
        "/admin/v1/workspaces/{id}/signing-keys/rotate",
        c -> {
          admin(c);
          String id = c.pathParam("id");
          var key = ctx.store().inTransaction(tx -> workspaces.rotate(tx, id));
          render(c, Outcome.of(201, key));
        });
    r.post("/admin/v1/clock", this::adminClock);

    r.exception(ServiceException.class, (e, c) -> problem(c, e));
    r.exception(HttpResponseException.class, (e, c) -> problem(c, fromJavalin(e)));
    r.exception(
        dev.agentauth.server.store.StoreUnavailableException.class,
        (e, c) -> {
          log.debug("503 on {} {}: {}", c.method(), c.path(), e.getMessage());
          problem(
              c,
              ServiceException.unavailable(
                  "the service is busy; retry after " + e.retryAfterSeconds() + " s",
                  e.retryAfterSeconds()));
        });
    r.exception(
        Exception.class,
        (e, c) -> {
          log.error("unexpected failure on {} {}", c.method(), c.path(), e);
          problem(
              c,
              ServiceException.of(
                  500, "internal_error", "the server failed to process the request"));
        });
    // Javalin hands an Error from a handler here, not to the exception handlers above.
    config.router.javaLangErrorHandler(Api::error);
  }

  /**
   * An Error thrown by a handler: a 500 problem like any unexpected failure, and a fatal one (out
   * of memory) goes to the fatal-error policy, which ends the process when one is installed.
   */
  private static void error(jakarta.servlet.http.HttpServletResponse res, Error e) {
    try {
      log.error("unexpected error while serving a request", e);
      res.setStatus(500);
      res.setContentType(PROBLEM);
      String id = res.getHeader("X-Request-Id");
      res.getOutputStream()
          .write(
              ("{\"type\":\"/errors/internal_error\",\"title\":\"Internal Server Error\","
                      + "\"status\":500,\"detail\":\"the server failed to process the request\","
                      + "\"code\":\"internal_error\""
                      + (id != null ? ",\"request_id\":\"" + id + "\"" : "")
                      + "}")
                  .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    } catch (Throwable ignored) {
      // the status is set; the body is a courtesy
    } finally {
      FatalErrors.report(e);
    }
  }

  /** An empty JSON object body (DELETE without a body). */
  public record EmptyBody() {}

  // ---- request lifecycle

  private void before(Context c) {
    String incoming = c.header("X-Request-Id");
    String id = incoming != null && REQUEST_ID.matcher(incoming).matches() ? incoming : requestId();
    c.attribute("request_id", id);
    c.header("X-Request-Id", id);
    String length = c.header("Content-Length");
    if (length != null) {
      try {
        long announced = Long.parseLong(length.trim());
        if (announced > MAX_BODY) {
          throw tooLarge(c, announced);
        }
      } catch (NumberFormatException e) {
        throw ServiceException.invalid("Content-Length", "is not a number");
      }
    }
  }

  private static ServiceException fromJavalin(HttpResponseException e) {
    int status = e.getStatus();
    return switch (status) {
      case 404 -> ServiceException.of(404, "not_found", "no such endpoint");
      case 405 ->
          ServiceException.of(
              405, "method_not_allowed", "this endpoint does not support that method");
      case 413 ->
          ServiceException.of(413, "payload_too_large", "the request body is larger than 1 MiB");
      default ->
          status >= 500
              ? ServiceException.of(
                  500, "internal_error", "the server failed to process the request")
              : ServiceException.of(status, "invalid_request", e.getMessage());
    };
  }

  private void problem(Context c, ServiceException e) {
    String requestId = c.attribute("request_id");
    List<FieldError> errors = null;
    if (e.errors() != null && !e.errors().isEmpty()) {
      errors = new ArrayList<>();
      for (ServiceException.FieldProblem p : e.errors()) {
        errors.add(new FieldError(p.field(), p.message()));
      }
    }
    Problem body =
        new Problem(
            "/errors/" + e.code(),
            title(e.status()),
            e.status(),
            e.detail(),
            e.code(),
            requestId,
            errors);
    if (e.status() == 401) {
      c.header("WWW-Authenticate", "Bearer");
    }
    if (e.retryAfter() != null) {
      c.header("Retry-After", e.retryAfter());
    }
    c.status(e.status()).contentType(PROBLEM).result(bytes(body));
  }

  private static String title(int status) {
    return switch (status) {
      case 400 -> "Bad Request";
      case 401 -> "Unauthorized";
      case 402 -> "Payment Required";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      case 409 -> "Conflict";
      case 410 -> "Gone";
      case 413 -> "Content Too Large";
      case 429 -> "Too Many Requests";
      case 503 -> "Service Unavailable";
      default -> status >= 500 ? "Internal Server Error" : "Error";
    };
  }

  /** Liveness: 503 once a thread the server cannot work without has died. */
  private void health(Context c) {
    String dead = deadThreads();
    if (dead == null) {
      c.contentType(JSON).result("{\"status\":\"ok\"}");
    } else {
      problem(c, ServiceException.of(503, "not_live", dead + "; restart the server"));
    }
  }

  /** What has died, or null when the store's threads and the signer threads are alive. */
  private String deadThreads() {
    if (!ctx.store().isLive()) {
      return "the store's writer thread has stopped";
    }
    if (!ctx.signer().isLive()) {
      return "a receipt signer thread has stopped";
    }
    return null;
  }

  private void ready(Context c) {
    String dead = deadThreads();
    if (dead != null) {
      problem(c, ServiceException.of(503, "not_ready", dead));
      return;
    }
    boolean ok;
    try {
      ok = ctx.store().isReachable();
    } catch (RuntimeException e) {
      ok = false;
    }
    if (ok) {
      c.contentType(JSON).result("{\"status\":\"ready\"}");
    } else {
      problem(c, ServiceException.of(503, "not_ready", "the store is not reachable"));
    }
  }

  private Caller authenticate(Context c) {
    String header = c.header("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      throw ServiceException.of(
          401, "unauthenticated", "send the API key as Authorization: Bearer <API_KEY>");
    }
    Caller caller =
        workspaces
            .authenticate(header.substring(7).trim())
            .orElseThrow(
                () -> ServiceException.of(401, "unauthenticated", "the API key is not valid"));
    if (!rateLimiter.tryAcquire(caller.apiKeyHash())) {
      throw ServiceException.rateLimited(1);
    }
    return caller;
  }

  private void admin(Context c) {
    if (settings.adminToken() == null) {
      throw ServiceException.of(404, "not_found", "no such endpoint");
    }
    String header = c.header("Authorization");
    String expected = "Bearer " + settings.adminToken();
    if (header == null
        || !MessageDigest.isEqual(
            header.getBytes(StandardCharsets.UTF_8), expected.getBytes(StandardCharsets.UTF_8))) {
      throw ServiceException.of(
          401, "unauthenticated", "send the admin token as Authorization: Bearer <ADMIN_TOKEN>");
    }
  }

  /**
   * The request body, read once and kept on the request: exactly Content-Length bytes when the
   * client sent one (already checked against the 1 MiB limit), else read up to the limit. Reading
   * it here rather than through Javalin avoids a growing copy buffer per request on the hot path.
   */
  private static byte[] body(Context c) {
    byte[] cached = c.attribute("agentauth.body");
    if (cached != null) {
      return cached;
    }
    byte[] bytes;
    try (java.io.InputStream in = c.req().getInputStream()) {
      long length = c.req().getContentLengthLong();
      if (length >= 0) {
        bytes = in.readNBytes((int) length);
      } else {
        bytes = in.readNBytes(MAX_BODY + 1);
        if (bytes.length > MAX_BODY) {
          throw tooLarge(c, -1);
        }
      }
    } catch (java.io.IOException e) {
      throw ServiceException.invalid("body", "could not be read: " + e.getMessage());
    }
    c.attribute("agentauth.body", bytes);
    return bytes;
  }

  /**
   * The 413 for an oversized body. A client still sending when the server answers and closes sees a
   * TCP reset, and most report a dropped connection instead of the answer, so a body of at most
   * {@link #DRAIN_LIMIT} bytes is read and thrown away first. A larger one, or one the client holds
   * back until told to go on ({@code Expect: 100-continue}), is not read: the answer goes out at
   * once and the connection closes after it.
   *
   * @param announced the {@code Content-Length}, or -1 for a chunked body
   */
  private static ServiceException tooLarge(Context c, long announced) {
    boolean drained = false;
    boolean waiting = announced >= 0 && "100-continue".equalsIgnoreCase(c.header("Expect"));
    if (!waiting && announced <= DRAIN_LIMIT) {
      try {
        java.io.InputStream in = c.req().getInputStream();
        byte[] sink = new byte[64 * 1024];
        long read = 0;
        int n;
        while (read <= DRAIN_LIMIT && (n = in.read(sink)) != -1) {
          read += n;
        }
        drained = read <= DRAIN_LIMIT;
      } catch (java.io.IOException e) {
        // the client stopped sending; the answer is still attempted
      }
    }
    if (!drained) {
      c.header("Connection", "close");
    }
    return ServiceException.of(413, "payload_too_large", "the request body is larger than 1 MiB");
  }

  /** Writes a complete response body in one piece, bypassing Javalin's result stream copy. */
  private static void send(Context c, int status, String contentType, byte[] bytes) {
    c.status(status).contentType(contentType);
    c.res().setContentLength(bytes.length);
    try {
      c.res().getOutputStream().write(bytes);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("client went away", e);
    }
  }

  private static int limit(Context c) {
    String raw = c.queryParam("limit");
    if (raw == null) {
      return 50;
    }
    try {
      int n = Integer.parseInt(raw);
      if (n >= 1 && n <= 100) {
        return n;
      }
    } catch (NumberFormatException e) {
      // fall through
    }
    throw ServiceException.invalid(
        "limit", "must be an integer from 1 to 100, got \"" + raw + "\"");
  }

  private static boolean waitRequested(Context c) {
    String w = c.queryParam("wait");
    if (w == null || w.equals("false")) {
      return false;
    }
    if (w.equals("true")) {
      return true;
    }
    throw ServiceException.invalid("wait", "must be true or false");
  }

  // ---- reads and writes

  /** A read-only operation. */
  @FunctionalInterface
  private interface Read {
    Outcome run(dev.agentauth.server.store.Tx tx, Caller caller);
  }

  private void read(Context c, Read op) {
    Caller caller = authenticate(c);
    render(
        c, readLimiter.run(caller.workspaceId(), () -> ctx.store().read(tx -> op.run(tx, caller))));
  }

  private void render(Context c, Outcome o) {
    Object body = o.body().apply(receipts::pending);
    send(c, o.status(), JSON, bytes(body));
  }

  private byte[] bytes(Object body) {
    try {
      return writer.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("response not serializable", e);
    }
  }

  private record Rendered(int status, byte[] body, boolean replayed, Outcome outcome) {}

  /**
   * Runs a mutating operation in one transaction together with its idempotency record, then hands
   * its receipts to the signer and, with {@code wait=true}, waits for them.
   */
  private void mutate(
      Context c, Caller caller, Function<dev.agentauth.server.store.Tx, Outcome> op) {
    mutate(c, caller, null, op);
  }

  /**
   * {@link #mutate(Context, Caller, Function)} for an operation that locks only the authorization
   * {@code group} names: without an Idempotency-Key (whose lock a group may not take) it runs as a
   * grouped transaction, which the store may commit together with others (group commit).
   */
  private void mutate(
      Context c,
      Caller caller,
      dev.agentauth.server.store.Store.GroupKey group,
      Function<dev.agentauth.server.store.Tx, Outcome> op) {
    boolean wait = waitRequested(c);
    String key = c.header("Idempotency-Key");
    if (key != null && (key.isEmpty() || key.length() > 255)) {
      throw ServiceException.invalid("Idempotency-Key", "must be 1 to 255 characters");
    }
    if (key == null && group != null) {
      Rendered rendered =
          ctx.store()
              .inGroupedTransaction(
                  group,
                  tx -> {
                    Outcome o = op.apply(tx);
                    return new Rendered(o.status(), null, false, o);
                  });
      finishMutation(c, rendered, wait);
      return;
    }
    String requestHash = key == null ? null : requestHash(c);
    Rendered rendered =
        ctx.store()
            .inTransaction(
                tx -> {
                  if (key != null) {
                    // A concurrent request with this key (in any instance) waits for this one and
                    // then replays its record.
                    tx.lock("idempotency/" + caller.apiKeyHash() + "/" + key);
                    Optional<IdempotencyRow> prior = tx.idempotency(caller.apiKeyHash(), key);
                    if (prior.isPresent()
                        && prior.get().createdAt().isAfter(ctx.now().minus(IDEMPOTENCY_TTL))) {
                      if (!prior.get().requestHash().equals(requestHash)) {
                        throw ServiceException.of(
                            409,
                            "idempotency_conflict",
                            "this Idempotency-Key was used with a different request");
                      }
                      return new Rendered(prior.get().status(), prior.get().body(), true, null);
                    }
                  }
                  Outcome o = op.apply(tx);
                  if (key == null) {
                    // Rendered after the commit: the transaction holds locks (or the writer).
                    return new Rendered(o.status(), null, false, o);
                  }
                  byte[] bytes = bytes(o.body().apply(receipts::pending));
                  tx.insertIdempotency(
                      new IdempotencyRow(
                          caller.apiKeyHash(),
                          key,
                          requestHash,
                          o.status(),
                          JSON,
                          bytes,
                          ctx.now()));
                  return new Rendered(o.status(), bytes, false, o);
                });
    finishMutation(c, rendered, wait);
  }

  /** Hands a committed mutation's receipts to the signer and sends its response. */
  private void finishMutation(Context c, Rendered rendered, boolean wait) {
    if (rendered.replayed()) {
      c.header("Idempotent-Replayed", "true");
      send(c, rendered.status(), JSON, rendered.body());
      return;
    }
    Outcome o = rendered.outcome();
    countDecisions(o);
    List<CompletableFuture<String>> waits = new ArrayList<>();
    if (wait) {
      for (ReceiptRow row : o.receipts()) {
        waits.add(ctx.signer().whenSigned(row.receiptId()));
      }
    }
    ctx.signer().submit(o.receipts());
    byte[] body =
        rendered.body() != null ? rendered.body() : bytes(o.body().apply(receipts::pending));
    if (wait && !o.receipts().isEmpty()) {
      Map<String, String> signed = awaitSigned(o.receipts(), waits);
      body = bytes(o.body().apply(row -> signedOrPending(row, signed)));
    }
    send(c, o.status(), JSON, body);
  }

  private ReceiptRef signedOrPending(ReceiptRow row, Map<String, String> signed) {
    String json = signed.get(row.receiptId());
    return json == null ? receipts.pending(row) : receipts.signed(json);
  }

  private Map<String, String> awaitSigned(
      List<ReceiptRow> rows, List<CompletableFuture<String>> waits) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < rows.size(); i++) {
      String id = rows.get(i).receiptId();
      try {
        long left = Math.max(0, deadline - System.nanoTime());
        out.put(id, waits.get(i).get(left, TimeUnit.NANOSECONDS));
      } catch (java.util.concurrent.TimeoutException e) {
        ctx.signer().forget(id);
      } catch (java.util.concurrent.ExecutionException e) {
        ctx.signer().forget(id);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    return out;
  }

  private void countDecisions(Outcome o) {
    for (ReceiptRow r : o.receipts()) {
      decisionCounters
          .computeIfAbsent(
              r.decision(),
              d -> Counter.builder("agentauth_decisions").tag("decision", d).register(metrics))
          .increment();
    }
  }

  private static String requestHash(Context c) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      md.update(c.method().name().getBytes(StandardCharsets.UTF_8));
      md.update((byte) 0);
      md.update(c.path().getBytes(StandardCharsets.UTF_8));
      md.update((byte) 0);
      String q = c.queryString();
      md.update((q == null ? "" : q).getBytes(StandardCharsets.UTF_8));
      md.update((byte) 0);
      md.update(body(c));
      return HexFormat.of().formatHex(md.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  // ---- handlers with bodies

  private void createAuthorization(Context c) {
    Caller caller = authenticate(c);
    ctx.signer().admit(caller.workspaceId());
    RequestBody<CreateAuthorizationRequest> b =
        RequestBody.parse(strict, body(c), CreateAuthorizationRequest.class, false);
    AuthorizationOps.validate(b.value(), b.object("metadata"));
    mutate(
        c,
        caller,
        tx ->
            authorizations.create(
                tx,
                caller,
                b.value(),
                b.object("metadata") == null ? null : b.object("metadata").deepCopy()));
  }

  private void revokeAuthorization(Context c) {
    Caller caller = authenticate(c);
    RequestBody<RevokeAuthorizationRequest> b =
        RequestBody.parse(strict, body(c), RevokeAuthorizationRequest.class, true);
    RevokeAuthorizationRequest r = b.value();
    Validation v = new Validation();
    v.identifier("revoked_by", r.revokedBy());
    v.text("notes", r.notes());
    v.throwIfInvalid();
    Validation.rejectPii("revoked_by", r.revokedBy());
    mutate(
        c,
        caller,
        tx -> authorizations.revoke(tx, caller, c.pathParam("id"), r.revokedBy(), r.notes()));
  }

  private void check(Context c) {
    Caller caller = authenticate(c);
    ctx.signer().admit(caller.workspaceId());
    RequestBody<CheckRequest> b = RequestBody.parse(strict, body(c), CheckRequest.class, false);
    CheckRequest r = b.value();
    CheckInput in =
        CheckOps.validate(
            r.authorizationId(),
            r.scopes(),
            r.resource(),
            r.sessionId(),
            r.estimatedCostMicros(),
            b.object("context") == null ? null : b.object("context").deepCopy());
    mutate(
        c,
        caller,
        new dev.agentauth.server.store.Store.GroupKey(
            caller.workspaceId(), in.authorizationId(), in.resource()),
        tx -> checks.check(tx, caller, in));
  }

  private void confirm(Context c) {
    Caller caller = authenticate(c);
    ConfirmationRequest r =
        RequestBody.parse(strict, body(c), ConfirmationRequest.class, false).value();
    ConfirmationOps.validate(r.approved(), r.ttlSeconds());
    mutate(
        c,
        caller,
        tx ->
            confirmations.resolve(tx, caller, c.pathParam("nonce"), r.approved(), r.ttlSeconds()));
  }

  private void resolveEscalation(Context c) {
    Caller caller = authenticate(c);
    EscalationResolveRequest r =
        RequestBody.parse(strict, body(c), EscalationResolveRequest.class, false).value();
    String resolution = r.resolution() == null ? null : r.resolution().value();
    if (!caller.isPro()) {
      throw ServiceException.of(402, "plan_required", "escalation resolution needs the pro plan");
    }
    EscalationOps.validate(resolution, r.resolvedBy(), r.note());
    mutate(
        c,
        caller,
        tx ->
            escalations.resolve(
                tx, caller, c.pathParam("id"), resolution, r.resolvedBy(), r.note()));
  }

  private void createBundle(Context c) {
    Caller caller = authenticate(c);
    BundleRequest r = RequestBody.parse(strict, body(c), BundleRequest.class, false).value();
    BundleOps.validate(r, null);
    mutate(c, caller, tx -> bundles.create(tx, caller, r));
  }

  private void editBundle(Context c) {
    Caller caller = authenticate(c);
    BundleRequest r = RequestBody.parse(strict, body(c), BundleRequest.class, false).value();
    BundleOps.validate(r, c.pathParam("id"));
    mutate(c, caller, tx -> bundles.edit(tx, caller, c.pathParam("id"), r));
  }

  private void createTombstone(Context c) {
    Caller caller = authenticate(c);
    TombstoneRequest r = RequestBody.parse(strict, body(c), TombstoneRequest.class, false).value();
    TombstoneOps.validate(r.resource(), r.reason());
    mutate(c, caller, tx -> tombstones.create(tx, caller, r.resource(), r.reason()));
  }

  private void listReceipts(Context c) {
    Caller caller = authenticate(c);
    Validation v = new Validation();
    String event = c.queryParam("event");
    if (event != null && !EVENTS.contains(event)) {
      v.add("event", "must be one of " + String.join(", ", new java.util.TreeSet<>(EVENTS)));
    }
    String decision = c.queryParam("decision");
    if (decision != null && !DECISIONS.contains(decision)) {
      v.add("decision", "must be one of " + String.join(", ", new java.util.TreeSet<>(DECISIONS)));
    }
    Instant from = instantParam(c, "from", v);
    Instant to = instantParam(c, "to", v);
    v.throwIfInvalid();
    ReceiptFilter filter =
        new ReceiptFilter(
            c.queryParam("authorization_id"),
            c.queryParam("user_id"),
            c.queryParam("resource"),
            c.queryParam("session_id"),
            c.queryParam("scope"),
            event,
            decision,
            from,
            to);
    int limit = limit(c);
    render(
        c,
        readLimiter.run(
            caller.workspaceId(),
            () ->
                ctx.store()
                    .read(tx -> receipts.list(tx, caller, filter, c.queryParam("cursor"), limit))));
  }

  private static Instant instantParam(Context c, String name, Validation v) {
    String raw = c.queryParam(name);
    if (raw == null) {
      return null;
    }
    try {
      return AgentAuthJson.parseInstant(raw);
    } catch (IllegalArgumentException e) {
      v.add(name, "must be an RFC 3339 timestamp with an offset, e.g. 2026-11-22T10:15:30Z");
      return null;
    }
  }

  private void adminCreateWorkspace(Context c) {
    admin(c);
    CreateWorkspaceRequest r =
        RequestBody.parse(strict, body(c), CreateWorkspaceRequest.class, false).value();
    WorkspaceOps.validateWorkspace(r.workspaceId(), r.plan());
    String plan = r.plan() == null ? "free" : r.plan().value();
    render(
        c,
        Outcome.of(
            201,
            ctx.store()
                .inTransaction(tx -> workspaces.createWorkspace(tx, r.workspaceId(), plan))));
  }

  private void adminClock(Context c) {
    admin(c);
    TestClock clock = settings.testClock();
    if (clock == null) {
      throw ServiceException.of(
          404, "not_found", "the test clock is off; start the server with --test-clock");
    }
    ClockRequest r = RequestBody.parse(strict, body(c), ClockRequest.class, false).value();
    if ((r.advanceSeconds() == null) == (r.set() == null)) {
      throw ServiceException.invalid("body", "send exactly one of advance_seconds and set");
    }
    Instant now;
    try {
      if (r.advanceSeconds() != null) {
        if (r.advanceSeconds() < 0) {
          throw ServiceException.invalid(
              "advance_seconds", "must not be negative: the clock only moves forward");
        }
        now = clock.advance(Duration.ofSeconds(r.advanceSeconds()));
      } else {
        now = clock.set(r.set());
      }
    } catch (IllegalArgumentException e) {
      throw ServiceException.invalid(r.set() != null ? "set" : "advance_seconds", e.getMessage());
    } catch (ArithmeticException | java.time.DateTimeException e) {
      throw ServiceException.invalid("advance_seconds", "is too large");
    }
    render(c, Outcome.of(200, new ClockResponse(now)));
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

  /** A request id for a request that brought none: not a secret, so no SecureRandom. */
  private static String requestId() {
    java.util.concurrent.ThreadLocalRandom r = java.util.concurrent.ThreadLocalRandom.current();
    return "req_" + Long.toString(r.nextLong() & Long.MAX_VALUE, 36);
  }
}
