package dev.agentauth.server.webhook;

import dev.agentauth.model.EscalationStatus;
import dev.agentauth.model.WebhookEventType;
import dev.agentauth.server.domain.EscalationRow;
import dev.agentauth.server.service.WebhookEvents;
import dev.agentauth.server.service.WebhookTargets;
import dev.agentauth.server.store.Store;
import dev.agentauth.server.store.WebhookDeliveryRow;
import dev.agentauth.server.store.WebhookTx;
import dev.agentauth.server.store.WebhookTx.Attempt;
import dev.agentauth.server.store.WebhookTx.Claimed;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.Proxy;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Dispatcher;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The webhook delivery worker of one server instance. Every {@link Settings#pollInterval} it leases
 * due deliveries from the outbox (a short transaction), sends each on OkHttp's dispatcher — never
 * inside a transaction or lock — and records the attempt in a second short transaction when the
 * answer (or the timeout) comes. A lease lasts {@link Settings#lease}, longer than an attempt can
 * take, so no other worker of any instance sends the same delivery while one attempt is under way.
 *
 * <p>Each webhook has at most {@link Settings#perWebhookInFlight} attempts in flight; a webhook at
 * its bound is left out of the next lease, so a slow or dead receiver holds only its own slots. Any
 * 2xx ends a delivery; anything else (another status, a redirect, which is never followed, a
 * timeout, a refused target) schedules the next attempt after an exponential backoff with jitter,
 * until the event is {@link Settings#giveUpAfter} old: then the delivery has failed.
 *
 * <p>Targets are checked again before every attempt, on the addresses the connection will use: the
 * client resolves names through {@link WebhookTargets}, so a name that now resolves to a private
 * address is refused without a connection.
 *
 * <p>Retention: every {@link #PRUNE_INTERVAL} the worker deletes the finished deliveries
 * (delivered, failed, cancelled) whose event is older than {@link Settings#retention}, by the
 * server's clock, {@link #PRUNE_BATCH} per short transaction; a full batch queues the next one
 * behind the polls already due, so pruning a large backlog never holds up sending. Each poll also
 * measures the outbox for {@link DeliveryMetrics}. Thread-safe.
 */
public final class DeliveryWorker implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DeliveryWorker.class);
  private static final MediaType JSON = MediaType.get("application/json");
  private static final int MAX_ERROR = 300;

  /** How often finished deliveries past the retention period are looked for. */
  public static final Duration PRUNE_INTERVAL = Duration.ofMinutes(1);

  /** Finished deliveries deleted at most per transaction. */
  public static final int PRUNE_BATCH = 500;

  /** Pending deliveries counted at most for the metrics. */
  static final long OUTBOX_COUNT_LIMIT = 100_000;

  /**
   * How the worker paces itself.
   *
   * @param pollInterval how often due deliveries are looked for
   * @param timeout how long one attempt may take in all (connect, send, answer)
   * @param retryBase the delay before the second attempt; each later one doubles it
   * @param retryCap the longest delay between attempts
   * @param giveUpAfter how long after its event a delivery is tried
   * @param lease how long a leased delivery stays another worker's; longer than {@code timeout}
   * @param perWebhookInFlight attempts in flight to one webhook at most
   * @param batch deliveries leased at most per poll
   * @param retention how long after its event a finished delivery is kept in the delivery log
   */
  public record Settings(
      Duration pollInterval,
      Duration timeout,
      Duration retryBase,
      Duration retryCap,
      Duration giveUpAfter,
      Duration lease,
      int perWebhookInFlight,
      int batch,
      Duration retention) {

    public static final Settings DEFAULT =
        new Settings(
            Duration.ofSeconds(1),
            Duration.ofSeconds(10),
            Duration.ofSeconds(10),
            Duration.ofHours(1),
            Duration.ofHours(24),
            Duration.ofSeconds(60),
            4,
            32,
            Duration.ofDays(7));

    public Settings {
      if (lease.compareTo(timeout.multipliedBy(2)) < 0) {
        throw new IllegalArgumentException(
            "the lease must be at least twice the timeout, got " + lease + " and " + timeout);
      }
      if (perWebhookInFlight < 1 || batch < 1) {
        throw new IllegalArgumentException("in-flight bound and batch must be at least 1");
      }
      if (retention.isNegative() || retention.isZero()) {
        throw new IllegalArgumentException("the retention must be positive, got " + retention);
      }
    }

    /** These settings polling every {@code interval}. */
    public Settings withPollInterval(Duration interval) {
      return new Settings(
          interval,
          timeout,
          retryBase,
          retryCap,
          giveUpAfter,
          lease,
          perWebhookInFlight,
          batch,
          retention);
    }

    /** These settings keeping finished deliveries {@code period} after their event. */
    public Settings withRetention(Duration period) {
      return new Settings(
          pollInterval,
          timeout,
          retryBase,
          retryCap,
          giveUpAfter,
          lease,
          perWebhookInFlight,
          batch,
          period);
    }
  }

  private final Store store;
  private final Supplier<Instant> now;
  private final Clock wallClock;
  private final WebhookEvents events;
  private final WebhookTargets targets;
  private final Settings settings;
  private final DeliveryMetrics metrics;
  private final String owner;
  private final OkHttpClient http;
  private final ExecutorService dispatcherThreads;
  private final SecureRandom random = new SecureRandom();
  private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
  private final ScheduledExecutorService poller;
  private volatile boolean closed;

  /**
   * @param now the server's clock (due times, backoff, giving up)
   * @param wallClock the real clock: the signature's {@code t=} (receivers compare it with their
   *     own) and leases (which guard against other processes, whatever a test clock says)
   * @param metrics where attempts, deliveries ended and the outbox are counted
   */
  public DeliveryWorker(
      Store store,
      Supplier<Instant> now,
      Clock wallClock,
      WebhookEvents events,
      WebhookTargets targets,
      Settings settings,
      DeliveryMetrics metrics) {
    this.store = store;
    this.now = now;
    this.wallClock = wallClock;
    this.events = events;
    this.targets = targets;
    this.settings = settings;
    this.metrics = metrics;
    byte[] id = new byte[8];
    random.nextBytes(id);
    this.owner = "worker_" + HexFormat.of().formatHex(id);
    this.dispatcherThreads =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "agentauth-webhooks-http");
              t.setDaemon(true);
              return t;
            });
    Dispatcher dispatcher = new Dispatcher(dispatcherThreads);
    dispatcher.setMaxRequests(64);
    dispatcher.setMaxRequestsPerHost(64);
    this.http =
        new OkHttpClient.Builder()
            .dispatcher(dispatcher)
            .proxy(Proxy.NO_PROXY)
            .followRedirects(false)
            .followSslRedirects(false)
            .retryOnConnectionFailure(false)
            .callTimeout(settings.timeout())
            .connectTimeout(settings.timeout())
            .readTimeout(settings.timeout())
            .writeTimeout(settings.timeout())
            .dns(this::lookup)
            .build();
    this.poller =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "agentauth-webhooks");
              t.setDaemon(true);
              return t;
            });
  }

  /** Resolves a name for a connection, refusing it when an address breaks the target rules. */
  private List<InetAddress> lookup(String host) throws UnknownHostException {
    List<InetAddress> addresses = targets.resolve(host);
    Optional<WebhookTargets.Refusal> refused = targets.checkAddresses(host, addresses);
    if (refused.isPresent()) {
      throw new RefusedTarget(refused.get().rule());
    }
    return addresses;
  }

  /** A target refused when resolved for a connection. */
  private static final class RefusedTarget extends UnknownHostException {
    private static final long serialVersionUID = 1L;

    RefusedTarget(String rule) {
      super(rule);
    }
  }

  /**
   * Starts polling. A store no other instance shares first ends the leases a killed process left,
   * so that what it was sending is sent again at once.
   */
  public DeliveryWorker start() {
    if (!store.sharedByInstances()) {
      int n = store.inTransaction(tx -> tx.releaseWebhookLeases());
      if (n > 0) {
        log.info("{} webhook deliveries left under way by the last run are due again", n);
      }
    }
    long ms = settings.pollInterval().toMillis();
    poller.scheduleWithFixedDelay(this::pollGuarded, ms, ms, TimeUnit.MILLISECONDS);
    poller.scheduleWithFixedDelay(
        this::pruneGuarded, ms, PRUNE_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
    return this;
  }

  private void pruneGuarded() {
    try {
      if (prune() == PRUNE_BATCH && !closed) {
        poller.execute(this::pruneGuarded); // more to delete: after the polls already due
      }
    } catch (RejectedExecutionException e) {
      // closed meanwhile: nothing more to delete in this process
    } catch (RuntimeException e) {
      log.warn(
          "deleting old webhook deliveries failed ({}); trying again in {}",
          e.toString(),
          PRUNE_INTERVAL);
    }
  }

  /**
   * Deletes up to {@link #PRUNE_BATCH} finished deliveries whose event is older than the retention
   * period, in one short transaction, and returns how many (tests call it to skip the wait).
   */
  public int prune() {
    if (closed) {
      return 0;
    }
    Instant before = now.get().minus(settings.retention());
    int n = store.inTransaction(tx -> tx.pruneWebhookDeliveries(before, PRUNE_BATCH));
    if (n > 0) {
      log.debug("deleted {} finished webhook deliveries of events before {}", n, before);
    }
    return n;
  }

  private void pollGuarded() {
    try {
      poll();
    } catch (RuntimeException e) {
      log.warn(
          "leasing webhook deliveries failed ({}); trying again at the next poll", e.toString());
    }
  }

  /**
   * Leases the due deliveries and starts their attempts, then measures the outbox for the metrics
   * (tests call it to skip the wait).
   */
  public void poll() {
    if (closed) {
      return;
    }
    try {
      claimAndSend();
    } finally {
      measureOutbox();
    }
  }

  private void measureOutbox() {
    Instant at = now.get();
    try {
      WebhookTx.Outbox o = store.read(tx -> tx.webhookOutbox(at, OUTBOX_COUNT_LIMIT));
      metrics.outbox(
          o.pending(), o.oldestEvent() == null ? null : Duration.between(o.oldestEvent(), at));
    } catch (RuntimeException e) {
      log.debug("measuring the webhook outbox failed; the metrics keep the last figures", e);
    }
  }

  private void claimAndSend() {
    Set<String> full = fullWebhooks();
    Instant at = now.get();
    Instant wall = wallClock.instant();
    List<Claimed> claimed =
        store.inTransaction(
            tx ->
                tx.claimWebhookDeliveries(
                    at, wall, wall.plus(settings.lease()), owner, full, settings.batch()));
    for (Claimed c : claimed) {
      AtomicInteger n =
          inFlight.computeIfAbsent(c.delivery().webhookId(), k -> new AtomicInteger());
      if (n.incrementAndGet() > settings.perWebhookInFlight()) {
        n.decrementAndGet();
        release(c.delivery(), c.delivery().nextAttemptAt());
        continue;
      }
      try {
        send(c);
      } catch (RuntimeException e) {
        n.decrementAndGet();
        log.warn("starting a webhook attempt failed", e);
        release(c.delivery(), c.delivery().nextAttemptAt());
      }
    }
  }

  private Set<String> fullWebhooks() {
    Set<String> full = new java.util.HashSet<>();
    inFlight.forEach(
        (id, n) -> {
          if (n.get() >= settings.perWebhookInFlight()) {
            full.add(id);
          }
        });
    return full;
  }

  /** Ends a lease without an attempt, the delivery due at {@code due}. */
  private void release(WebhookDeliveryRow d, Instant due) {
    record(
        new Attempt(
            d.webhookId(), d.eventId(), owner, now.get(), false, null, null, "pending", due));
  }

  private void send(Claimed c) {
    WebhookDeliveryRow d = c.delivery();
    String body = d.payload();
    if (body == null) {
      body = expiredBody(d);
      if (body == null) {
        inFlight.get(d.webhookId()).decrementAndGet();
        return;
      }
    }
    Optional<WebhookTargets.Refusal> refused = checkUrl(c.url());
    if (refused.isPresent()) {
      metrics.attempted(DeliveryMetrics.Outcome.REFUSED, null);
      finished(d, null, "refused target: " + refused.get().rule());
      return;
    }
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    long t = wallClock.millis() / 1000;
    Request request =
        new Request.Builder()
            .url(c.url())
            .header("AgentAuth-Signature", WebhookSignature.header(c.secret(), t, bytes))
            .header("AgentAuth-Event-Id", d.eventId())
            .header("AgentAuth-Event-Type", d.type())
            .header("User-Agent", "agentauth-webhooks/1")
            .post(RequestBody.create(bytes, JSON))
            .build();
    long started = System.nanoTime();
    http.newCall(request)
        .enqueue(
            new Callback() {
              @Override
              public void onResponse(Call call, Response response) {
                try (response) {
                  int code = response.code();
                  metrics.attempted(
                      code >= 200 && code < 300
                          ? DeliveryMetrics.Outcome.SUCCESS
                          : DeliveryMetrics.Outcome.HTTP_ERROR,
                      Duration.ofNanos(System.nanoTime() - started));
                  finished(
                      d,
                      code,
                      code >= 200 && code < 300
                          ? null
                          : code >= 300 && code < 400
                              ? "answered " + code + " (redirects are not followed)"
                              : "answered " + code);
                }
              }

              @Override
              public void onFailure(Call call, IOException e) {
                metrics.attempted(outcome(e), Duration.ofNanos(System.nanoTime() - started));
                finished(d, null, describe(e));
              }
            });
  }

  /**
   * The form and address checks for a literal address, which the connection does not resolve; names
   * are checked again when the connection resolves them ({@link #lookup}).
   */
  private Optional<WebhookTargets.Refusal> checkUrl(String url) {
    String host = URI.create(url).getHost();
    if (host != null && (host.startsWith("[") || host.matches("[0-9.]+"))) {
      return targets.check(url);
    }
    return Optional.empty();
  }

  private static DeliveryMetrics.Outcome outcome(IOException e) {
    if (e instanceof RefusedTarget) {
      return DeliveryMetrics.Outcome.REFUSED;
    }
    return e instanceof InterruptedIOException
        ? DeliveryMetrics.Outcome.TIMEOUT
        : DeliveryMetrics.Outcome.NETWORK_ERROR;
  }

  private static String describe(IOException e) {
    String text;
    if (e instanceof RefusedTarget) {
      text = "refused target: " + e.getMessage();
    } else if (e instanceof InterruptedIOException) {
      text = "timed out";
    } else {
      text = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }
    return text.length() > MAX_ERROR ? text.substring(0, MAX_ERROR) : text;
  }

  /**
   * The body of an {@code escalation.expired} delivery, from the escalation as it is now; null when
   * it is not to be sent (the escalation was resolved, is gone, or is not yet expired: the delivery
   * is cancelled or put off, and its lease ended).
   */
  private String expiredBody(WebhookDeliveryRow d) {
    Instant at = now.get();
    Optional<EscalationRow> e =
        d.subjectId() == null
            ? Optional.empty()
            : store.read(tx -> tx.escalation(d.workspaceId(), d.subjectId()));
    if (e.isPresent() && WebhookEventType.ESCALATION_EXPIRED.equals(d.type())) {
      EscalationStatus.Known status = e.get().effectiveStatus(at);
      if (status == EscalationStatus.Known.EXPIRED) {
        return events.expiredBody(d.eventId(), e.get(), at);
      }
      if (status == EscalationStatus.Known.PENDING) {
        release(d, e.get().expiresAt());
        return null;
      }
    }
    if (record(
        new Attempt(d.webhookId(), d.eventId(), owner, at, false, null, null, "cancelled", null))) {
      metrics.finished("cancelled", null);
    }
    return null;
  }

  /** Records an attempt's result: delivered on a 2xx, else retried later or given up. */
  private void finished(WebhookDeliveryRow d, Integer code, String error) {
    try {
      Instant at = now.get();
      boolean ok = error == null && code != null;
      String status;
      Instant next = null;
      if (ok) {
        status = "delivered";
      } else {
        next = at.plus(backoff(d.attempts() + 1));
        boolean tooOld = next.isAfter(d.eventCreatedAt().plus(settings.giveUpAfter()));
        status = tooOld ? "failed" : "pending";
        next = tooOld ? null : next;
      }
      if (record(
              new Attempt(d.webhookId(), d.eventId(), owner, at, true, code, error, status, next))
          && next == null) {
        metrics.finished(status, Duration.between(d.eventCreatedAt(), at));
      }
    } finally {
      AtomicInteger n = inFlight.get(d.webhookId());
      if (n != null) {
        n.decrementAndGet();
      }
    }
  }

  /**
   * The delay after attempt {@code attempt} (1 for the first): {@code retryBase × 2^(attempt-1)},
   * at most {@code retryCap}, of which a random part up to a half is taken off (jitter), so that
   * receivers back after an outage are not hit by every sender at once.
   */
  Duration backoff(int attempt) {
    long base = settings.retryBase().toMillis();
    long full = base << Math.min(attempt - 1, 30);
    if (full <= 0 || full > settings.retryCap().toMillis()) {
      full = settings.retryCap().toMillis();
    }
    long jitter = (long) (random.nextDouble() * (full / 2.0));
    return Duration.ofMillis(full - jitter);
  }

  /** Records {@code a}; false when it was not (closed, the lease lost, the store failing). */
  private boolean record(Attempt a) {
    if (closed) {
      return false; // the lease ends by itself, and the attempt is made again
    }
    try {
      if (store.inTransaction(tx -> tx.recordWebhookAttempt(a))) {
        return true;
      }
      log.warn(
          "webhook delivery {} to {}: the lease ended before the attempt was recorded",
          a.eventId(),
          a.webhookId());
    } catch (RuntimeException e) {
      log.warn(
          "recording webhook delivery {} to {} failed ({}); it is sent again when its lease ends",
          a.eventId(),
          a.webhookId(),
          e.toString());
    }
    return false;
  }

  /** Stops polling and abandons attempts under way (their leases end; they are sent again). */
  @Override
  public void close() {
    closed = true;
    poller.shutdownNow();
    http.dispatcher().cancelAll();
    dispatcherThreads.shutdownNow();
    http.connectionPool().evictAll();
  }

  @Override
  public String toString() {
    return "DeliveryWorker[" + Objects.requireNonNull(owner) + "]";
  }
}
