package dev.agentauth.server.service;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.model.ApiKey;
import dev.agentauth.model.ApiKeyPage;
import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.model.CreateApiKeyRequest;
import dev.agentauth.server.store.ApiKeyRow;
import dev.agentauth.server.store.Page;
import dev.agentauth.server.store.PageRequest;
import dev.agentauth.server.store.Tx;
import dev.agentauth.server.store.WorkspaceRow;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * API keys (decisions.md §15): authentication from an in-memory cache keyed by the secret's hash,
 * creation with a role (at most {@code maxKeysPerWorkspace} live keys per workspace), listing,
 * revocation, and the key's own record.
 *
 * <p>Authenticating a cached key touches no store: the cache holds each key's caller, expiry and
 * revocation. It holds at most {@link #CACHE_SIZE} keys (Caffeine's size-bounded eviction, which
 * keeps the keys used often); an evicted key costs one store read on its next use. Only keys that
 * exist are cached, so unknown keys cannot push known ones out.
 *
 * <p>A revocation on this instance marks the cached entry before its response is written, so every
 * request that starts after it sees the key revoked. {@link #refresh()}, which the server runs
 * every 250 ms, reads the store's revocation log after the last entry it saw (one range read,
 * whatever the number of cached keys), marks the cached keys other instances revoked, and records
 * the keys' uses ({@code last_used_at}, at most once a minute per key) off the request path.
 */
public final class ApiKeyOps {
  private static final Logger log = LoggerFactory.getLogger(ApiKeyOps.class);
  private static final Pattern API_KEY = Pattern.compile("sk_[A-Za-z0-9_-]{43}");

  /** A key's {@code last_used_at} is written at most this often. */
  public static final Duration USE_INTERVAL = Duration.ofSeconds(60);

  /** Characters of the secret after {@code sk_} that listings show. */
  static final int PREFIX_LENGTH = 8;

  static final int MAX_NAME = 100;

  /** Labels an approver key may be bound to. */
  static final int MAX_TARGETS = 100;

  /** Keys the cache holds at most: about 5 MB of heap. */
  public static final int CACHE_SIZE = 10_000;

  /** Live keys a workspace may hold unless configured otherwise. */
  public static final int DEFAULT_MAX_KEYS_PER_WORKSPACE = 1_000;

  /** Revocation log entries one store read takes (a refresh reads until it has them all). */
  static final int REVOCATIONS_PER_READ = 1_000;

  private final ServiceContext ctx;
  private final int maxKeysPerWorkspace;
  private final Cache<String, Entry> cache;
  private final Map<String, ApiKeyRow.Use> uses = new ConcurrentHashMap<>();

  /**
   * Bumped by every thread that marks cached keys revoked, before it marks them: a key loaded from
   * the store while it changed may have missed its mark, and is read again.
   */
  private final AtomicLong marks = new AtomicLong();

  /** The last revocation log entry applied; -1 until read. Guarded by {@code this}. */
  private volatile long seenRevocation = -1;

  public ApiKeyOps(ServiceContext ctx) {
    this(ctx, DEFAULT_MAX_KEYS_PER_WORKSPACE, CACHE_SIZE);
  }

  /**
   * @param maxKeysPerWorkspace live (neither revoked nor expired) keys a workspace may hold
   * @param cacheSize keys the authentication cache holds at most
   */
  public ApiKeyOps(ServiceContext ctx, int maxKeysPerWorkspace, int cacheSize) {
    if (maxKeysPerWorkspace < 1 || cacheSize < 1) {
      throw new IllegalArgumentException("the key cap and the cache size must be at least 1");
    }
    this.ctx = ctx;
    this.maxKeysPerWorkspace = maxKeysPerWorkspace;
    this.cache = Caffeine.newBuilder().maximumSize(cacheSize).executor(Runnable::run).build();
  }

  /** A cached key: its caller and expiry, whether it is revoked, and when its use was recorded. */
  private static final class Entry {
    final Caller caller;
    final Instant expiresAt;
    volatile boolean revoked;
    final AtomicLong usedMillis;

    Entry(Caller caller, Instant expiresAt, boolean revoked, Instant lastUsedAt) {
      this.caller = caller;
      this.expiresAt = expiresAt;
      this.revoked = revoked;
      this.usedMillis =
          new AtomicLong(lastUsedAt == null ? Long.MIN_VALUE : lastUsedAt.toEpochMilli());
    }
  }

  /** SHA-256 hex of an API key: the only form in which keys are stored. */
  public static String hash(String apiKey) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(apiKey.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The caller a presented API key belongs to.
   *
   * @throws ServiceException 401 {@code unauthenticated} for a malformed, unknown, revoked or
   *     expired key
   */
  public Caller authenticate(String apiKey) {
    if (apiKey == null || !API_KEY.matcher(apiKey).matches()) {
      throw ServiceException.of(ErrorCode.UNAUTHENTICATED, "the API key is not valid");
    }
    String h = hash(apiKey);
    Entry e = cache.getIfPresent(h);
    if (e == null) {
      e = load(h);
    }
    if (e.revoked) {
      throw ServiceException.of(ErrorCode.UNAUTHENTICATED, "the API key has been revoked");
    }
    Instant now = ctx.now();
    if (e.expiresAt != null && !now.isBefore(e.expiresAt)) {
      throw ServiceException.of(
          ErrorCode.UNAUTHENTICATED,
          "the API key expired at " + AgentAuthJson.formatInstant(e.expiresAt));
    }
    long last = e.usedMillis.get();
    long nowMillis = now.toEpochMilli();
    if ((last == Long.MIN_VALUE || nowMillis - last >= USE_INTERVAL.toMillis())
        && e.usedMillis.compareAndSet(last, nowMillis)) {
      uses.put(h, new ApiKeyRow.Use(h, now, apiKey.substring(3, 3 + PREFIX_LENGTH)));
    }
    return e.caller;
  }

  /**
   * Reads a key that is not cached and caches it. A revocation applied while it was read may have
   * found nothing to mark; then the key is read again, which sees that revocation.
   */
  private Entry load(String h) {
    startRevocationLog();
    long before = marks.get();
    Entry loaded =
        ctx.store()
            .read(
                tx ->
                    tx.apiKey(h).flatMap(k -> tx.workspace(k.workspaceId()).map(w -> entry(k, w))))
            .orElseThrow(
                () -> ServiceException.of(ErrorCode.UNAUTHENTICATED, "the API key is not valid"));
    Entry raced = cache.asMap().putIfAbsent(h, loaded);
    if (raced != null) {
      return raced;
    }
    if (!loaded.revoked && marks.get() != before) {
      boolean revoked =
          ctx.store().read(tx -> tx.apiKey(h).map(k -> k.revokedAt() != null).orElse(true));
      if (revoked) {
        loaded.revoked = true;
      }
    }
    return loaded;
  }

  /**
   * Reads where the revocation log ends, once, before any key is loaded: every revocation after
   * that point is then applied by {@link #refresh}, and every one before it is in what a load
   * reads.
   */
  private void startRevocationLog() {
    if (seenRevocation < 0) {
      synchronized (this) {
        if (seenRevocation < 0) {
          seenRevocation = ctx.store().read(tx -> tx.lastApiKeyRevocation());
        }
      }
    }
  }

  private static Entry entry(ApiKeyRow k, WorkspaceRow w) {
    Caller caller =
        new Caller(
            w.workspaceId(),
            WorkspaceOps.plan(w.plan()),
            k.keyHash(),
            k.keyId(),
            ApiKeyRole.of(k.role()),
            k.approverId(),
            k.targets());
    return new Entry(caller, k.expiresAt(), k.revokedAt() != null, k.lastUsedAt());
  }

  /**
   * Picks up revocations made by other instances sharing the store, and records the keys' uses
   * since the last call. The store work grows with the revocations and uses since the last call,
   * never with the number of cached keys. Runs off the request path; a store failure is logged and
   * retried at the next call. Calls run one at a time, so when one returns, every use noted before
   * it began is written.
   */
  public synchronized void refresh() {
    try {
      applyRevocations();
    } catch (RuntimeException e) {
      log.warn("reading API key revocations failed; retrying: {}", e.toString());
    }
    List<ApiKeyRow.Use> batch = new ArrayList<>();
    for (String h : List.copyOf(uses.keySet())) {
      ApiKeyRow.Use u = uses.remove(h);
      if (u != null) {
        batch.add(u);
      }
    }
    if (batch.isEmpty()) {
      return;
    }
    try {
      ctx.store()
          .inTransaction(
              tx -> {
                tx.recordApiKeyUses(batch, USE_INTERVAL);
                return null;
              });
    } catch (RuntimeException e) {
      batch.forEach(u -> uses.putIfAbsent(u.keyHash(), u));
      log.warn("recording API key uses failed; retrying: {}", e.toString());
    }
  }

  /** Marks the cached keys of the revocation log's entries after the last one applied. */
  private void applyRevocations() {
    if (seenRevocation < 0) {
      seenRevocation = ctx.store().read(tx -> tx.lastApiKeyRevocation());
      return;
    }
    while (true) {
      long after = seenRevocation;
      List<ApiKeyRow.Revocation> batch =
          ctx.store().read(tx -> tx.apiKeyRevocationsAfter(after, REVOCATIONS_PER_READ));
      if (batch.isEmpty()) {
        return;
      }
      markRevoked(batch.stream().map(ApiKeyRow.Revocation::keyHash).toList());
      seenRevocation = batch.get(batch.size() - 1).seq();
      if (batch.size() < REVOCATIONS_PER_READ) {
        return;
      }
    }
  }

  /** Marks cached keys revoked; keys not cached are read from the store when next met. */
  private void markRevoked(List<String> keyHashes) {
    marks.incrementAndGet();
    for (String h : keyHashes) {
      cache
          .asMap()
          .computeIfPresent(
              h,
              (k, e) -> {
                e.revoked = true;
                return e;
              });
    }
  }

  /** How many keys the cache holds now (after pending evictions ran). */
  long cachedKeys() {
    cache.cleanUp();
    return cache.estimatedSize();
  }

  /** Whether the cache holds this key now (after pending evictions ran). */
  boolean caches(String apiKey) {
    cache.cleanUp();
    return cache.getIfPresent(hash(apiKey)) != null;
  }

  /** Validates a key creation request against the server's time. */
  public static void validate(CreateApiKeyRequest r, Instant now) {
    Validation v = new Validation();
    ApiKeyRole.Known role = ApiKeyRole.Known.FULL;
    if (r.role() != null) {
      Optional<ApiKeyRole.Known> known = r.role().known();
      if (known.isEmpty()) {
        v.add(
            "role",
            "must be full, app, agent, tool_server, approver or auditor, got \""
                + Validation.clip(r.role().value())
                + "\"");
      } else {
        role = known.get();
      }
    }
    if (r.name() != null) {
      if (r.name().isEmpty() || r.name().length() > MAX_NAME) {
        v.add("name", "must be 1 to " + MAX_NAME + " characters, got " + r.name().length());
      } else {
        v.identifier("name", r.name());
      }
    }
    if (role == ApiKeyRole.Known.APPROVER) {
      if (v.required("approver_id", r.approverId())) {
        v.identifier("approver_id", r.approverId());
      }
      targets(v, r.targets());
    } else {
      if (r.approverId() != null) {
        v.add("approver_id", "is only for the approver role");
      }
      if (r.targets() != null) {
        v.add("targets", "is only for the approver role");
      }
    }
    if (r.expiresAt() != null && !r.expiresAt().isAfter(now)) {
      v.add(
          "expires_at",
          "must be in the future (the server's time is " + AgentAuthJson.formatInstant(now) + ")");
    }
    v.throwIfInvalid();
    Validation.rejectPii("approver_id", r.approverId());
  }

  /**
   * An approver key's {@code escalation_to} labels: 1–100 unique labels like {@code resolved_by}.
   */
  private static void targets(Validation v, List<String> targets) {
    if (targets == null) {
      return;
    }
    if (targets.isEmpty() || targets.size() > MAX_TARGETS) {
      v.add("targets", "must have 1 to " + MAX_TARGETS + " labels, got " + targets.size());
      return;
    }
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (int i = 0; i < targets.size(); i++) {
      String t = targets.get(i);
      if (t == null) {
        v.add("targets[" + i + "]", "must be an escalation_to label");
      } else if (!seen.add(t)) {
        v.add("targets[" + i + "]", "duplicate label \"" + Validation.clip(t) + "\"");
      } else {
        v.identifier("targets[" + i + "]", t);
      }
    }
  }

  /**
   * Creates a key for a workspace (validated by {@link #validate}); the answer holds the secret.
   *
   * @throws ServiceException 400 {@code invalid_request} when the workspace already holds {@code
   *     maxKeysPerWorkspace} live keys (counted under a lock of the workspace's keys, so concurrent
   *     creations cannot pass the cap together)
   */
  public ApiKey create(Tx tx, String workspaceId, CreateApiKeyRequest r) {
    if (tx.workspace(workspaceId).isEmpty()) {
      throw ServiceException.notFound("workspace");
    }
    tx.lock("api-keys:" + workspaceId);
    int live = tx.countLiveApiKeys(workspaceId, ctx.now());
    if (live >= maxKeysPerWorkspace) {
      throw ServiceException.of(
          ErrorCode.INVALID_REQUEST,
          "the workspace already has "
              + live
              + " API keys that are neither revoked nor expired, its limit of "
              + maxKeysPerWorkspace
              + " keys per workspace; revoke keys it no longer needs to make room");
    }
    String secret = "sk_" + ctx.token(32);
    String role = r.role() == null ? "full" : r.role().value();
    ApiKeyRow row =
        new ApiKeyRow(
            hash(secret),
            newKeyId(),
            workspaceId,
            role,
            r.name(),
            r.approverId(),
            secret.substring(3, 3 + PREFIX_LENGTH),
            ctx.now(),
            r.expiresAt(),
            null,
            null,
            r.targets());
    tx.insertApiKey(row);
    return wire(row, secret);
  }

  /**
   * Registers a caller-chosen {@code full} API key for a workspace if it is not registered yet (the
   * server's start-up key).
   *
   * @throws IllegalArgumentException if the key is malformed or belongs to another workspace
   */
  public void ensure(Tx tx, String workspaceId, String apiKey) {
    if (!API_KEY.matcher(apiKey).matches()) {
      throw new IllegalArgumentException(
          "an API key must look like sk_ followed by 43 base64url characters (32 random bytes)");
    }
    String h = hash(apiKey);
    Optional<ApiKeyRow> existing = tx.apiKey(h);
    if (existing.isPresent() && !existing.get().workspaceId().equals(workspaceId)) {
      throw new IllegalArgumentException("that API key belongs to another workspace");
    }
    if (existing.isEmpty()) {
      tx.insertApiKey(
          ApiKeyRow.full(
              h, newKeyId(), workspaceId, apiKey.substring(3, 3 + PREFIX_LENGTH), ctx.now()));
    }
  }

  /** One page of a workspace's keys, in key id order (creation order), without secrets. */
  public ApiKeyPage list(Tx tx, String workspaceId, String cursor, int limit) {
    if (tx.workspace(workspaceId).isEmpty()) {
      throw ServiceException.notFound("workspace");
    }
    String filters = "api_keys";
    Page<ApiKeyRow> page =
        tx.listApiKeys(workspaceId, new PageRequest(Cursors.decode(cursor, filters), limit));
    List<ApiKey> items = new ArrayList<>();
    page.items().forEach(k -> items.add(wire(k, null)));
    return new ApiKeyPage(items, page.hasMore(), Cursors.next(filters, page, ApiKeyRow::keyId));
  }

  /**
   * Revokes a workspace's key in its own transaction. When this returns, every request that starts
   * on this instance refuses the key; other instances sharing the store refuse it within a second.
   *
   * @throws ServiceException 404 for an unknown key (or another workspace's), 409 {@code
   *     already_revoked} if it was revoked before
   */
  public ApiKey revoke(String workspaceId, String keyId) {
    ApiKeyRow revoked =
        ctx.store()
            .inTransaction(
                tx -> {
                  if (tx.workspace(workspaceId).isEmpty()) {
                    throw ServiceException.notFound("workspace");
                  }
                  ApiKeyRow row =
                      tx.apiKeyById(workspaceId, keyId)
                          .orElseThrow(() -> ServiceException.notFound("API key"));
                  Instant now = ctx.now();
                  if (row.revokedAt() != null || !tx.revokeApiKey(workspaceId, keyId, now)) {
                    throw ServiceException.of(
                        ErrorCode.ALREADY_REVOKED, "API key " + keyId + " is already revoked");
                  }
                  return row.revokedAt(now);
                });
    markRevoked(List.of(revoked.keyHash()));
    return wire(revoked, null);
  }

  /** The calling key's own record, without the secret. */
  public ApiKey current(Tx tx, Caller caller) {
    return tx.apiKey(caller.apiKeyHash())
        .map(k -> wire(k, null))
        .orElseThrow(() -> ServiceException.notFound("API key"));
  }

  private String newKeyId() {
    return "key_" + ctx.ulid().toLowerCase(Locale.ROOT);
  }

  /** The wire record of a key; {@code secret} only in the answer that created it, else null. */
  private static ApiKey wire(ApiKeyRow k, String secret) {
    return new ApiKey(
        k.keyId(),
        secret,
        k.workspaceId(),
        ApiKeyRole.of(k.role()),
        k.name(),
        k.approverId(),
        k.prefix(),
        k.createdAt(),
        k.expiresAt(),
        k.lastUsedAt(),
        k.revokedAt(),
        k.targets());
  }
}
