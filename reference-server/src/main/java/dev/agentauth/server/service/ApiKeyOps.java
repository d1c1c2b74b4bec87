package dev.agentauth.server.service;

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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * API keys (decisions.md §15): authentication from an in-memory cache keyed by the secret's hash,
 * creation with a role, listing, revocation, and the key's own record.
 *
 * <p>Authenticating a known key touches no store: the cache holds each key's caller, expiry and
 * revocation. A revocation on this instance marks the cached entry before its response is written,
 * so every request that starts after it sees the key revoked. {@link #refresh()}, which the server
 * runs every 250 ms, asks the store which cached keys other instances revoked, and records the
 * keys' uses ({@code last_used_at}, at most once a minute per key) off the request path.
 */
public final class ApiKeyOps {
  private static final Logger log = LoggerFactory.getLogger(ApiKeyOps.class);
  private static final Pattern API_KEY = Pattern.compile("sk_[A-Za-z0-9_-]{43}");

  /** A key's {@code last_used_at} is written at most this often. */
  public static final Duration USE_INTERVAL = Duration.ofSeconds(60);

  /** Characters of the secret after {@code sk_} that listings show. */
  static final int PREFIX_LENGTH = 8;

  static final int MAX_NAME = 100;

  private final ServiceContext ctx;
  private final Map<String, Entry> cache = new ConcurrentHashMap<>();
  private final Map<String, ApiKeyRow.Use> uses = new ConcurrentHashMap<>();

  public ApiKeyOps(ServiceContext ctx) {
    this.ctx = ctx;
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

    /** The entry of a key revoked here before any request of this instance loaded it. */
    static Entry revokedKey() {
      return new Entry(null, null, true, null);
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
    Entry e = cache.get(h);
    if (e == null) {
      Entry loaded =
          ctx.store()
              .read(
                  tx ->
                      tx.apiKey(h)
                          .flatMap(k -> tx.workspace(k.workspaceId()).map(w -> entry(k, w))))
              .orElseThrow(
                  () -> ServiceException.of(ErrorCode.UNAUTHENTICATED, "the API key is not valid"));
      // A revocation that marked the key meanwhile wins over what this read saw.
      Entry raced = cache.putIfAbsent(h, loaded);
      e = raced == null ? loaded : raced;
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

  private static Entry entry(ApiKeyRow k, WorkspaceRow w) {
    Caller caller =
        new Caller(
            w.workspaceId(),
            WorkspaceOps.plan(w.plan()),
            k.keyHash(),
            k.keyId(),
            ApiKeyRole.of(k.role()),
            k.approverId());
    return new Entry(caller, k.expiresAt(), k.revokedAt() != null, k.lastUsedAt());
  }

  /**
   * Picks up revocations made by other instances sharing the store (for every cached key), and
   * records the keys' uses since the last call. Runs off the request path; a store failure is
   * logged and retried at the next call. Calls run one at a time, so when one returns, every use
   * noted before it began is written.
   */
  public synchronized void refresh() {
    List<ApiKeyRow.Use> batch = new ArrayList<>();
    for (String h : List.copyOf(uses.keySet())) {
      ApiKeyRow.Use u = uses.remove(h);
      if (u != null) {
        batch.add(u);
      }
    }
    try {
      if (!batch.isEmpty()) {
        ctx.store()
            .inTransaction(
                tx -> {
                  tx.recordApiKeyUses(batch, USE_INTERVAL);
                  return null;
                });
      }
      List<String> live = new ArrayList<>();
      cache.forEach(
          (h, e) -> {
            if (!e.revoked) {
              live.add(h);
            }
          });
      if (!live.isEmpty()) {
        Set<String> revoked = ctx.store().read(tx -> tx.revokedApiKeys(live));
        revoked.forEach(this::markRevoked);
      }
    } catch (RuntimeException e) {
      batch.forEach(u -> uses.putIfAbsent(u.keyHash(), u));
      log.warn("refreshing API keys failed; retrying: {}", e.toString());
    }
  }

  private void markRevoked(String keyHash) {
    cache.compute(
        keyHash,
        (h, e) -> {
          if (e == null) {
            return Entry.revokedKey();
          }
          e.revoked = true;
          return e;
        });
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
            "must be full, app, agent, approver or auditor, got \""
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
    } else if (r.approverId() != null) {
      v.add("approver_id", "is only for the approver role");
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
   * Creates a key for a workspace (validated by {@link #validate}); the answer holds the secret.
   */
  public ApiKey create(Tx tx, String workspaceId, CreateApiKeyRequest r) {
    if (tx.workspace(workspaceId).isEmpty()) {
      throw ServiceException.notFound("workspace");
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
            null);
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
    markRevoked(revoked.keyHash());
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
        k.revokedAt());
  }
}
