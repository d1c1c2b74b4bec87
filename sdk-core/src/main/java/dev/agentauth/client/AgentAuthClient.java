package dev.agentauth.client;

import dev.agentauth.client.internal.ApiRequest;
import dev.agentauth.client.internal.Backoff;
import dev.agentauth.client.internal.CheckFallback;
import dev.agentauth.client.internal.ClientConfig;
import dev.agentauth.client.internal.Endpoints;
import dev.agentauth.client.internal.FallbackLog;
import dev.agentauth.client.internal.Timing;
import dev.agentauth.client.internal.Transport;
import dev.agentauth.client.internal.Version;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.model.CheckResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;

/**
 * The agentauth API client: decide what an AI agent may do ({@link #check(CheckParams)}), manage
 * the authorizations behind those decisions, and fetch the signed receipts that prove them.
 *
 * <pre>{@code
 * AgentAuthClient client = AgentAuthClient.builder()
 *     .baseUrl("https://agentauth.example.com")
 *     .apiKey(System.getenv("AGENTAUTH_API_KEY"))
 *     .build();
 *
 * CheckResponse r = client.check(CheckParams.of(authorizationId, "email.send"));
 * CheckResult email = r.results().get("email.send");
 * if (email.isAllowed()) {
 *   sendEmail();
 * }
 * }</pre>
 *
 * <p>One service object per resource: {@link #authorizations()}, {@link #bundles()}, {@link
 * #confirmations()}, {@link #escalations()}, {@link #receipts()}, {@link #tombstones()}, {@link
 * #workspaces()}; {@link #async()} has the same operations returning {@link
 * java.util.concurrent.CompletableFuture}s.
 *
 * <p><b>Share one instance.</b> A client is immutable and thread-safe and owns an OkHttp connection
 * pool; build it once and reuse it everywhere. {@link #newBuilder()} derives a variant (another API
 * key, shorter timeouts) that shares the pool.
 *
 * <p><b>Failures are honest.</b> Every call has a finite timeout (connect 5 s; a whole call 10 s,
 * retries included; a check 1 s, or 6 s with {@code waitForReceipt}). Connection failures and
 * statuses 408, 429, 500, 502, 503, 504 are retried up to twice with jittered exponential backoff
 * ({@code Retry-After} honoured); every POST and DELETE carries one {@code Idempotency-Key} reused
 * on each retry, so a retried call never acts twice. What still fails is thrown as an {@link
 * AgentAuthException} subclass, except for {@link #check(CheckParams)}: denials are results, and
 * when the service cannot answer at all the {@link FallbackPolicy} decides (deny by default).
 *
 * <p>The API key is never included in {@link #toString()} or in exception messages.
 */
public final class AgentAuthClient {
  /** Default connect timeout. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);

  /** Default timeout of a whole call, retries included. */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);

  /** Default timeout of a whole {@code /v1/check} call; {@code waitForReceipt} adds 5 s. */
  public static final Duration DEFAULT_CHECK_TIMEOUT = Duration.ofSeconds(1);

  /** Default number of retries after a failed attempt. */
  public static final int DEFAULT_MAX_RETRIES = 2;

  private final ClientConfig config;
  private final Transport transport;
  private final FallbackPolicy fallback;
  private final FallbackLog fallbackLog;
  private final boolean allowInsecureHttp;
  private final AuthorizationService authorizations;
  private final BundleService bundles;
  private final ConfirmationService confirmations;
  private final EscalationService escalations;
  private final ReceiptService receipts;
  private final TombstoneService tombstones;
  private final ApiKeyService apiKeys;
  private final WebhookService webhooks;
  private final WorkspaceService workspaces;
  private final AgentAuthAsyncClient async;

  private AgentAuthClient(ClientConfig config, FallbackPolicy fallback, boolean allowInsecureHttp) {
    this.config = config;
    this.transport = new Transport(config);
    this.fallback = fallback;
    this.fallbackLog = new FallbackLog(config.timing()::nanoTime);
    this.allowInsecureHttp = allowInsecureHttp;
    this.authorizations = new AuthorizationService(transport);
    this.bundles = new BundleService(transport);
    this.confirmations = new ConfirmationService(transport);
    this.escalations = new EscalationService(transport);
    this.receipts = new ReceiptService(transport);
    this.tombstones = new TombstoneService(transport);
    this.apiKeys = new ApiKeyService(transport);
    this.webhooks = new WebhookService(transport);
    this.workspaces = new WorkspaceService(transport);
    this.async = new AgentAuthAsyncClient(transport, fallback, fallbackLog);
  }

  /** Returns a builder with every default in place; {@code baseUrl} is required. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns a builder holding this client's settings and sharing its connection pool and
   * dispatcher, to derive a variant: {@code client.newBuilder().apiKey(otherKey).build()}.
   */
  public Builder newBuilder() {
    return new Builder(this);
  }

  /** Returns the authorization operations ({@code /v1/authorizations}). */
  public AuthorizationService authorizations() {
    return authorizations;
  }

  /** Returns the agent scope bundle operations ({@code /v1/agent-scope-bundles}). */
  public BundleService bundles() {
    return bundles;
  }

  /** Returns the confirmation operations ({@code /v1/confirmations}). */
  public ConfirmationService confirmations() {
    return confirmations;
  }

  /** Returns the escalation operations ({@code /v1/escalations}). */
  public EscalationService escalations() {
    return escalations;
  }

  /** Returns the receipt operations ({@code /v1/receipts}). */
  public ReceiptService receipts() {
    return receipts;
  }

  /** Returns the tombstone operations ({@code /v1/tombstones}). */
  public TombstoneService tombstones() {
    return tombstones;
  }

  /**
   * Returns the API key operations ({@code /v1/api-keys}): create, list and revoke need a {@code
   * full} key; the calling key's own record needs any.
   */
  public ApiKeyService apiKeys() {
    return apiKeys;
  }

  /** The workspace's webhooks: create, list, delete, and their delivery log. */
  public WebhookService webhooks() {
    return webhooks;
  }

  /** Returns the public workspace operations (keys; sent without the API key). */
  public WorkspaceService workspaces() {
    return workspaces;
  }

  /** Returns the asynchronous view of this client, sharing its configuration and pool. */
  public AgentAuthAsyncClient async() {
    return async;
  }

  /**
   * Decides the scopes of {@code params} ({@code POST /v1/check}). The response has one result per
   * scope; {@code deny}, {@code confirm} and {@code escalate} are results, never exceptions.
   *
   * <p>When the service cannot answer (timeout, connection failure, 5xx after retries) the client's
   * {@link FallbackPolicy} decides instead: the results are marked {@code fallback} and carry no
   * receipt, and the fallback is logged at WARN (rate-limited; see {@link FallbackPolicy}). Retries
   * reuse one {@code Idempotency-Key}, so the service counts a retried check once ({@code
   * max_per_day}, budget).
   *
   * @throws BadRequestException if the service rejects the request ({@code invalid_request})
   * @throws AuthenticationException if the API key is not accepted
   * @throws ConnectionException only when the fallback policy is {@link FallbackPolicy#disabled()}
   * @throws ServerException only when the fallback policy is {@link FallbackPolicy#disabled()}
   */
  public CheckResponse check(CheckParams params) {
    return check(params, RequestOptions.none());
  }

  /**
   * Like {@link #check(CheckParams)} with per-call options; {@link RequestOptions#timeout()}
   * replaces the check timeout.
   *
   * @param params the validated check
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public CheckResponse check(CheckParams params, RequestOptions options) {
    return checkWithResponse(params, options).value();
  }

  /**
   * Like {@link #check(CheckParams, RequestOptions)}, returning the status, headers and {@code
   * X-Request-Id} with the value; for a fallback response, {@link ApiResponse#fallbackCause()}
   * holds the failure that triggered it.
   *
   * @param params the validated check
   * @param options per-call timeout, retries, idempotency key, headers
   */
  public ApiResponse<CheckResponse> checkWithResponse(CheckParams params, RequestOptions options) {
    ApiRequest<CheckResponse> request = Endpoints.check(params);
    ApiResponse<CheckResponse> response;
    try {
      response = transport.execute(request, options);
    } catch (ConnectionException | ServerException e) {
      if (CheckFallback.applies(fallback, e)) {
        return CheckFallback.respond(fallback, params, e, fallbackLog);
      }
      throw e;
    }
    fallbackLog.answered();
    return response;
  }

  /** Returns the base URL the client calls. */
  public HttpUrl baseUrl() {
    return config.baseUrl();
  }

  /** Returns the fallback policy of checks. */
  public FallbackPolicy fallbackPolicy() {
    return fallback;
  }

  /** Returns the OkHttp client used (sharing the pool of the one given to the builder). */
  public OkHttpClient okHttpClient() {
    return config.okHttp();
  }

  ClientConfig config() {
    return config;
  }

  /** Describes the client without revealing the API key. */
  @Override
  public String toString() {
    return "AgentAuthClient{baseUrl="
        + config.baseUrl()
        + ", apiKey="
        + (config.apiKey() == null ? "none" : "[redacted]")
        + ", requestTimeout="
        + config.requestTimeout()
        + ", checkTimeout="
        + config.checkTimeout()
        + ", maxRetries="
        + config.maxRetries()
        + ", fallback="
        + fallback
        + "}";
  }

  /**
   * Builder of {@link AgentAuthClient}. Only {@link #baseUrl(String)} is required; an API key is
   * needed for every endpoint except {@link WorkspaceService#keys(String)}. Not thread-safe.
   */
  public static final class Builder {
    private HttpUrl baseUrl;
    private String apiKey;
    private OkHttpClient okHttpClient;
    private Duration connectTimeout;
    private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
    private Duration checkTimeout = DEFAULT_CHECK_TIMEOUT;
    private int maxRetries = DEFAULT_MAX_RETRIES;
    private FallbackPolicy fallback = FallbackPolicy.failClosed();
    private boolean allowInsecureHttp;
    private Timing timing = Timing.system();
    private Backoff backoff = Backoff.defaults();

    private Builder() {}

    private Builder(AgentAuthClient client) {
      ClientConfig c = client.config;
      this.baseUrl = c.baseUrl();
      this.apiKey = c.apiKey();
      this.okHttpClient = c.okHttp();
      this.requestTimeout = c.requestTimeout();
      this.checkTimeout = c.checkTimeout();
      this.maxRetries = c.maxRetries();
      this.fallback = client.fallback;
      this.allowInsecureHttp = client.allowInsecureHttp;
      this.timing = c.timing();
      this.backoff = c.backoff();
    }

    /**
     * Sets the service's base URL, e.g. {@code https://agentauth.example.com} (a path prefix such
     * as {@code https://gw.example.com/agentauth} is kept). Plain {@code http} is refused except
     * for loopback hosts ({@code localhost}, {@code 127.0.0.1}, {@code [::1]}) unless {@link
     * #allowInsecureHttp(boolean)} is set, so an API key never crosses a network in clear text by
     * accident.
     *
     * @throws IllegalArgumentException if {@code baseUrl} is not an http or https URL
     */
    public Builder baseUrl(String baseUrl) {
      Objects.requireNonNull(baseUrl, "baseUrl");
      HttpUrl parsed = HttpUrl.parse(baseUrl.strip());
      if (parsed == null) {
        throw new IllegalArgumentException(
            "expected an http or https base URL such as https://agentauth.example.com, found: "
                + baseUrl);
      }
      return baseUrl(parsed);
    }

    /**
     * Sets the service's base URL.
     *
     * @throws IllegalArgumentException if it has a query or fragment
     */
    public Builder baseUrl(HttpUrl baseUrl) {
      Objects.requireNonNull(baseUrl, "baseUrl");
      if (baseUrl.query() != null || baseUrl.fragment() != null) {
        throw new IllegalArgumentException(
            "expected a base URL without query or fragment, found: " + baseUrl.redact());
      }
      if (!baseUrl.username().isEmpty() || !baseUrl.password().isEmpty()) {
        throw new IllegalArgumentException(
            "expected a base URL without credentials (use apiKey(...)), found: "
                + baseUrl.redact());
      }
      this.baseUrl = baseUrl;
      return this;
    }

    /**
     * Sets the API key sent as {@code Authorization: Bearer <key>}. It is never logged or shown.
     *
     * @throws IllegalArgumentException if blank or containing whitespace or control characters
     */
    public Builder apiKey(String apiKey) {
      Objects.requireNonNull(apiKey, "apiKey");
      if (apiKey.isBlank()) {
        throw new IllegalArgumentException("expected an API key, found a blank string");
      }
      for (int i = 0; i < apiKey.length(); i++) {
        char c = apiKey.charAt(i);
        if (c <= 0x20 || c >= 0x7f) {
          throw new IllegalArgumentException(
              "expected an API key of printable ASCII without whitespace, found a character"
                  + " outside it at index "
                  + i);
        }
      }
      this.apiKey = apiKey;
      return this;
    }

    /**
     * Uses {@code client}'s connection pool, dispatcher, interceptors, proxy and TLS settings. The
     * client derives its own instance with {@link OkHttpClient#newBuilder()}, so the pool is shared
     * and {@code client} is not modified. Its connect timeout is kept unless {@link
     * #connectTimeout(Duration)} is set or it is infinite; per-call timeouts always come from this
     * client.
     */
    public Builder okHttpClient(OkHttpClient client) {
      this.okHttpClient = Objects.requireNonNull(client, "client");
      return this;
    }

    /**
     * Sets the TCP/TLS connect timeout (default 5 s).
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = positive(timeout, "connectTimeout");
      return this;
    }

    /**
     * Sets the default timeout of a whole call, every retry and wait included (default 10 s).
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = positive(timeout, "requestTimeout");
      return this;
    }

    /**
     * Sets the default timeout of a whole {@code /v1/check} call, retries included (default 1 s;
     * {@code waitForReceipt} adds 5 s). When it runs out the fallback policy decides.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder checkTimeout(Duration timeout) {
      this.checkTimeout = positive(timeout, "checkTimeout");
      return this;
    }

    /**
     * Sets how many times a failed attempt is retried (default 2; 0 disables retries).
     *
     * @throws IllegalArgumentException if outside 0–10
     */
    public Builder maxRetries(int maxRetries) {
      if (maxRetries < 0 || maxRetries > RequestOptions.MAX_RETRIES_LIMIT) {
        throw new IllegalArgumentException(
            "expected maxRetries in 0-"
                + RequestOptions.MAX_RETRIES_LIMIT
                + ", found: "
                + maxRetries);
      }
      this.maxRetries = maxRetries;
      return this;
    }

    /** Sets what a check answers when the service cannot (default {@code fail_closed}). */
    public Builder fallback(FallbackPolicy fallback) {
      this.fallback = Objects.requireNonNull(fallback, "fallback");
      return this;
    }

    /**
     * Allows a plain {@code http://} base URL on a non-loopback host, e.g. inside a private network
     * behind TLS-terminating infrastructure. The API key then travels unencrypted.
     */
    public Builder allowInsecureHttp(boolean allow) {
      this.allowInsecureHttp = allow;
      return this;
    }

    /** Injects the clocks and waits (tests move time instead of sleeping). */
    Builder timing(Timing timing) {
      this.timing = Objects.requireNonNull(timing, "timing");
      return this;
    }

    /** Injects the retry backoff (tests fix its jitter). */
    Builder backoff(Backoff backoff) {
      this.backoff = Objects.requireNonNull(backoff, "backoff");
      return this;
    }

    /**
     * Returns the client.
     *
     * @throws IllegalStateException if no base URL was set, or it is plain {@code http} on a
     *     non-loopback host without {@link #allowInsecureHttp(boolean)}
     */
    public AgentAuthClient build() {
      if (baseUrl == null) {
        throw new IllegalStateException(
            "expected a base URL: call baseUrl(\"https://...\") before build()");
      }
      if (!baseUrl.isHttps() && !allowInsecureHttp && !isLoopback(baseUrl.host())) {
        throw new IllegalStateException(
            "refusing plain http for non-loopback host "
                + baseUrl.host()
                + ": the API key would travel unencrypted; use https, or allowInsecureHttp(true)"
                + " if the network is trusted");
      }
      OkHttpClient base = okHttpClient != null ? okHttpClient : new OkHttpClient();
      // Never follow a redirect: OkHttp keeps the Authorization header on a same-host redirect,
      // https to http included, which would send the API key in clear text or somewhere unmeant.
      OkHttpClient.Builder ok = base.newBuilder().followRedirects(false).followSslRedirects(false);
      if (connectTimeout != null) {
        ok.connectTimeout(connectTimeout.toMillis(), TimeUnit.MILLISECONDS);
      } else if (okHttpClient == null || base.connectTimeoutMillis() == 0) {
        ok.connectTimeout(DEFAULT_CONNECT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      }
      ClientConfig config =
          new ClientConfig(
              baseUrl,
              apiKey,
              ok.build(),
              requestTimeout,
              checkTimeout,
              maxRetries,
              AgentAuthJson.newObjectMapper(),
              timing,
              backoff,
              Version.userAgent());
      return new AgentAuthClient(config, fallback, allowInsecureHttp);
    }

    /** Describes the builder without revealing the API key. */
    @Override
    public String toString() {
      return "AgentAuthClient.Builder{baseUrl="
          + baseUrl
          + ", apiKey="
          + (apiKey == null ? "none" : "[redacted]")
          + "}";
    }

    static boolean isLoopback(String host) {
      String h = host.toLowerCase(Locale.ROOT);
      if (h.equals("localhost") || h.endsWith(".localhost")) {
        return true;
      }
      if (h.equals("::1") || h.equals("0:0:0:0:0:0:0:1")) {
        return true;
      }
      String[] parts = h.split("\\.", -1);
      if (parts.length != 4 || !parts[0].equals("127")) {
        return false;
      }
      for (String p : parts) {
        if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(Character::isDigit)) {
          return false;
        }
        if (Integer.parseInt(p) > 255) {
          return false;
        }
      }
      return true;
    }

    private static Duration positive(Duration d, String name) {
      Objects.requireNonNull(d, name);
      if (d.isZero() || d.isNegative()) {
        throw new IllegalArgumentException("expected a positive " + name + ", found: " + d);
      }
      return d;
    }
  }
}
