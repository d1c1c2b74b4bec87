package dev.agentauth.server.store;

import dev.agentauth.model.EscalationStatus;
import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.domain.EscalationRow;
import dev.agentauth.server.domain.GrantRow;
import dev.agentauth.server.domain.NonceRow;
import dev.agentauth.verifier.signing.SignedReceiptText;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * A {@link Store} held in memory, for tests and embedding. Transactions are serialized by one lock
 * and every write records its inverse, so a transaction whose work throws leaves no trace.
 *
 * <p>Bounded: the records checks create (receipts, idempotency records, nonces, escalations,
 * webhook deliveries) are kept within an estimated number of bytes, the oldest evicted first
 * ({@link MemoryBudget}), so a flood of checks cannot exhaust the heap. Evicted records are gone.
 */
public final class MemoryStore implements Store {
  private final ReentrantLock lock = new ReentrantLock();
  private final Deque<Runnable> undo = new ArrayDeque<>();

  // ---- the bound (issue 25 item 8): what a committed transaction adds to it, and its evictions
  private final MemoryBudget budget;
  private final List<Runnable> onCommit = new ArrayList<>();
  private final MemoryTx tx = new MemoryTx();
  private volatile boolean closed;

  private final Map<String, WorkspaceRow> workspaces = new HashMap<>();
  private final Map<String, ApiKeyRow> apiKeys = new HashMap<>();
  private final Map<String, TreeMap<String, String>> apiKeyHashesById = new HashMap<>();
  private final Map<String, String> apiKeyIds = new HashMap<>();
  private final TreeMap<Long, String> apiKeyRevocations = new TreeMap<>();
  private final Map<String, List<SigningKeyRow>> signingKeys = new HashMap<>();
  private final Map<String, TreeMap<String, AuthorizationRow>> authorizations = new HashMap<>();
  private final Map<String, Long> counters = new HashMap<>();
  private final Map<String, NonceRow> nonces = new HashMap<>();
  private final Map<String, String> latestNonce = new HashMap<>();
  private final Map<String, GrantRow> latestGrant = new HashMap<>();
  private final Map<String, TreeMap<String, EscalationRow>> escalations = new HashMap<>();
  private final Map<String, String> latestEscalation = new HashMap<>();
  private final Map<String, TreeMap<String, BundleRow>> bundles = new HashMap<>();
  private final Map<String, TreeMap<String, TombstoneRow>> tombstones = new HashMap<>();
  private final Map<String, TreeMap<String, TombstoneRow>> tombstonePatterns = new HashMap<>();
  private final Map<String, TreeMap<String, ReceiptRow>> receipts = new HashMap<>();
  private final TreeMap<String, ReceiptRow> pending = new TreeMap<>();
  private final MemoryLog log =
      new MemoryLog(
          undo,
          (ws, id) -> {
            TreeMap<String, ReceiptRow> t = receipts.get(ws);
            return t == null ? null : t.get(id);
          });
  private final TreeMap<String, TreeMap<String, ReceiptRow>> pendingByWorkspace = new TreeMap<>();
  private final Map<String, IdempotencyRow> idempotency = new HashMap<>();
  private final Map<LocalDate, Map<String, UsageTx.ReceiptUsage>> usage = new HashMap<>();

  /** A store bounded at a quarter of the JVM's maximum heap. */
  public MemoryStore() {
    this(MemoryBudget.defaultMaxBytes());
  }

  /**
   * A store that keeps the records checks create within {@code maxBytes} of estimated heap,
   * evicting the oldest first.
   */
  public MemoryStore(long maxBytes) {
    this.budget = new MemoryBudget(maxBytes, System::nanoTime);
  }

  /** The bound on the records checks create, in estimated bytes. */
  public long maxBytes() {
    return budget.maxBytes();
  }

  /** The estimated bytes of the records checks created that the store holds now. */
  public long heldBytes() {
    lock.lock();
    try {
      return budget.bytes();
    } finally {
      lock.unlock();
    }
  }

  /** Receipts evicted so far. */
  public long evictedReceipts() {
    return evicted(MemoryBudget.Kind.RECEIPT);
  }

  /**
   * Records evicted so far: receipts, idempotency records, nonces, escalations and webhook
   * deliveries.
   */
  public long evictedRecords() {
    long n = 0;
    for (MemoryBudget.Kind k : MemoryBudget.Kind.values()) {
      n += evicted(k);
    }
    return n;
  }

  private long evicted(MemoryBudget.Kind kind) {
    lock.lock();
    try {
      return budget.evicted(kind);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public <T> T inTransaction(Work<T> work) {
    lock.lock();
    try {
      if (closed) {
        throw new StoreException("store is closed");
      }
      undo.clear();
      onCommit.clear();
      boolean ok = false;
      try {
        T result = work.run(tx);
        ok = true;
        committed();
        return result;
      } finally {
        if (!ok) {
          while (!undo.isEmpty()) {
            undo.pop().run();
          }
        }
        undo.clear();
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean isReachable() {
    return !closed;
  }

  @Override
  public String describe() {
    return "memory";
  }

  @Override
  public void close() {
    closed = true;
  }

  /** Counts what the transaction added, then evicts the oldest records past the bound. */
  private void committed() {
    onCommit.forEach(Runnable::run);
    onCommit.clear();
    while (budget.over()) {
      MemoryBudget.Entry e = budget.takeOldest();
      long freed =
          switch (e.kind()) {
            case RECEIPT -> evictReceipt(e);
            case IDEMPOTENCY -> evictIdempotency(e);
            case NONCE -> evictNonce(e);
            case ESCALATION -> evictEscalation(e);
            case DELIVERY -> tx.evictDelivery(e.workspaceId(), e.key());
          };
      if (freed > 0) {
        budget.evicted(e, freed);
      }
    }
    budget.warnIfEvicting();
  }

  private long evictReceipt(MemoryBudget.Entry e) {
    TreeMap<String, ReceiptRow> t = receipts.get(e.workspaceId());
    ReceiptRow row = t == null ? null : t.remove(e.key());
    if (row == null) {
      return 0;
    }
    pending.remove(e.key());
    log.evicted(e.workspaceId(), e.key());
    TreeMap<String, ReceiptRow> waiting = pendingByWorkspace.get(e.workspaceId());
    if (waiting != null) {
      waiting.remove(e.key());
    }
    return MemoryBudget.size(row);
  }

  private long evictIdempotency(MemoryBudget.Entry e) {
    IdempotencyRow row = idempotency.remove(e.key());
    return row == null ? 0 : MemoryBudget.size(row);
  }

  private long evictNonce(MemoryBudget.Entry e) {
    NonceRow row = nonces.remove(e.key());
    if (row == null) {
      return 0;
    }
    latestNonce.remove(
        key(row.workspaceId(), row.authorizationId(), row.scope(), row.resource()), row.nonce());
    return MemoryBudget.size(row);
  }

  private long evictEscalation(MemoryBudget.Entry e) {
    TreeMap<String, EscalationRow> t = escalations.get(e.workspaceId());
    EscalationRow row = t == null ? null : t.remove(e.key());
    if (row == null) {
      return 0;
    }
    latestEscalation.remove(
        key(row.workspaceId(), row.authorizationId(), row.scope(), row.resource()),
        row.escalationId());
    return MemoryBudget.size(row);
  }

  /** After commit: {@code row} joins the bound's order. */
  private void added(MemoryBudget.Kind kind, String workspaceId, String k, long size) {
    onCommit.add(() -> budget.added(new MemoryBudget.Entry(kind, workspaceId, k), size));
  }

  /** After commit: a counted record changed size by {@code delta}. */
  private void resized(long delta) {
    if (delta != 0) {
      onCommit.add(() -> budget.resized(delta));
    }
  }

  private static String key(String... parts) {
    return String.join("\u0000", parts);
  }

  private static String key(String ws, String auth, String scope, String resource) {
    return ws
        + '\u0000'
        + auth
        + '\u0000'
        + scope
        + '\u0000'
        + (resource == null ? "\u0001" : "=" + resource);
  }

  /** Puts {@code value} and records how to undo it. */
  private <K, V> void put(Map<K, V> map, K k, V value) {
    boolean had = map.containsKey(k);
    V previous = map.put(k, value);
    undo.push(
        () -> {
          if (had) {
            map.put(k, previous);
          } else {
            map.remove(k);
          }
        });
  }

  private <K, V> void remove(Map<K, V> map, K k) {
    if (map.containsKey(k)) {
      V previous = map.remove(k);
      undo.push(() -> map.put(k, previous));
    }
  }

  private <V> TreeMap<String, V> table(Map<String, TreeMap<String, V>> byWorkspace, String ws) {
    return byWorkspace.computeIfAbsent(ws, w -> new TreeMap<>());
  }

  private static <V> Page<V> page(
      NavigableMap<String, V> rows, PageRequest page, Predicate<V> filter) {
    String after = page.after();
    int limit = page.limit();
    NavigableMap<String, V> tail = after == null ? rows : rows.tailMap(after, false);
    List<V> items = new ArrayList<>(Math.min(limit, 128));
    Iterator<V> it = tail.values().iterator();
    while (it.hasNext()) {
      V v = it.next();
      if (!filter.test(v)) {
        continue;
      }
      if (items.size() == limit) {
        return new Page<>(items, true);
      }
      items.add(v);
    }
    return new Page<>(items, false);
  }

  private final class MemoryTx extends MemoryWebhooks implements Tx {
    MemoryTx() {
      super(undo);
    }

    @Override
    void deliveryAdded(WebhookDeliveryRow d, long size) {
      added(MemoryBudget.Kind.DELIVERY, d.webhookId(), d.eventId(), size);
    }

    @Override
    void deliveriesResized(long delta) {
      resized(delta);
    }

    @Override
    public Optional<WorkspaceRow> workspace(String workspaceId) {
      return Optional.ofNullable(workspaces.get(workspaceId));
    }

    @Override
    public boolean insertWorkspace(WorkspaceRow row) {
      if (workspaces.containsKey(row.workspaceId())) {
        return false;
      }
      put(workspaces, row.workspaceId(), row);
      return true;
    }

    @Override
    public void lock(String name) {
      // Every memory transaction holds the store lock.
    }

    @Override
    public void lockShared(String name) {
      // Every memory transaction holds the store lock.
    }

    @Override
    public Optional<ApiKeyRow> apiKey(String keyHash) {
      return Optional.ofNullable(apiKeys.get(keyHash));
    }

    @Override
    public Optional<ApiKeyRow> apiKeyById(String workspaceId, String keyId) {
      String hash = table(apiKeyHashesById, workspaceId).get(keyId);
      return hash == null ? Optional.empty() : Optional.ofNullable(apiKeys.get(hash));
    }

    @Override
    public void insertApiKey(ApiKeyRow row) {
      if (apiKeys.containsKey(row.keyHash())) {
        throw new StoreException("duplicate API key");
      }
      if (apiKeyIds.containsKey(row.keyId())) {
        throw new StoreException("duplicate API key id " + row.keyId());
      }
      put(apiKeyIds, row.keyId(), row.workspaceId());
      put(apiKeys, row.keyHash(), row);
      put(table(apiKeyHashesById, row.workspaceId()), row.keyId(), row.keyHash());
    }

    @Override
    public Page<ApiKeyRow> listApiKeys(String workspaceId, PageRequest page) {
      Page<String> hashes = page(table(apiKeyHashesById, workspaceId), page, h -> true);
      return new Page<>(
          hashes.items().stream().map(apiKeys::get).toList(),
          hashes.hasMore(),
          hashes.resumeAfter());
    }

    @Override
    public boolean revokeApiKey(String workspaceId, String keyId, Instant at) {
      Optional<ApiKeyRow> row = apiKeyById(workspaceId, keyId);
      if (row.isEmpty() || row.get().revokedAt() != null) {
        return false;
      }
      put(apiKeys, row.get().keyHash(), row.get().revokedAt(at));
      put(apiKeyRevocations, lastApiKeyRevocation() + 1, row.get().keyHash());
      return true;
    }

    @Override
    public List<ApiKeyRow.Revocation> apiKeyRevocationsAfter(long seq, int limit) {
      List<ApiKeyRow.Revocation> out = new ArrayList<>();
      for (Map.Entry<Long, String> e : apiKeyRevocations.tailMap(seq, false).entrySet()) {
        if (out.size() == limit) {
          break;
        }
        out.add(new ApiKeyRow.Revocation(e.getKey(), e.getValue()));
      }
      return out;
    }

    @Override
    public long lastApiKeyRevocation() {
      return apiKeyRevocations.isEmpty() ? 0 : apiKeyRevocations.lastKey();
    }

    @Override
    public int countLiveApiKeys(String workspaceId, Instant now) {
      int n = 0;
      for (String hash : table(apiKeyHashesById, workspaceId).values()) {
        ApiKeyRow row = apiKeys.get(hash);
        if (row.revokedAt() == null && (row.expiresAt() == null || row.expiresAt().isAfter(now))) {
          n++;
        }
      }
      return n;
    }

    @Override
    public void recordApiKeyUses(List<ApiKeyRow.Use> uses, Duration minInterval) {
      for (ApiKeyRow.Use use : uses) {
        ApiKeyRow row = apiKeys.get(use.keyHash());
        if (row != null
            && (row.lastUsedAt() == null
                || !row.lastUsedAt().isAfter(use.at().minus(minInterval)))) {
          put(apiKeys, row.keyHash(), row.usedAt(use.at(), use.prefix()));
        }
      }
    }

    @Override
    public List<SigningKeyRow> signingKeys(String workspaceId) {
      return List.copyOf(signingKeys.getOrDefault(workspaceId, List.of()));
    }

    @Override
    public void insertSigningKey(SigningKeyRow row) {
      List<SigningKeyRow> next =
          new ArrayList<>(signingKeys.getOrDefault(row.workspaceId(), List.of()));
      next.add(row);
      put(signingKeys, row.workspaceId(), List.copyOf(next));
    }

    @Override
    public void updateSigningKey(SigningKeyRow row) {
      List<SigningKeyRow> next =
          new ArrayList<>(signingKeys.getOrDefault(row.workspaceId(), List.of()));
      next.replaceAll(k -> k.keyId().equals(row.keyId()) ? row : k);
      put(signingKeys, row.workspaceId(), List.copyOf(next));
    }

    @Override
    public Optional<AuthorizationRow> authorization(String workspaceId, String authorizationId) {
      return Optional.ofNullable(table(authorizations, workspaceId).get(authorizationId));
    }

    @Override
    public Optional<AuthorizationRow> authorizationForUpdate(
        String workspaceId, String authorizationId) {
      return authorization(workspaceId, authorizationId); // the store lock already serializes
    }

    @Override
    public void insertAuthorization(AuthorizationRow row) {
      put(table(authorizations, row.workspaceId()), row.authorizationId(), row);
    }

    @Override
    public void updateAuthorization(AuthorizationRow row) {
      insertAuthorization(row);
    }

    @Override
    public Page<AuthorizationRow> listAuthorizations(AuthorizationFilter f, PageRequest page) {
      return page(
          table(authorizations, f.workspaceId()),
          page,
          a ->
              (f.userId() == null || f.userId().equals(a.userId()))
                  && (f.agentId() == null || f.agentId().equals(a.agentId()))
                  && (f.status() == null || f.status() == a.status(f.now())));
    }

    @Override
    public long allowCount(
        String workspaceId, String authorizationId, String scope, LocalDate day) {
      return counters.getOrDefault(key(workspaceId, authorizationId, scope, day.toString()), 0L);
    }

    @Override
    public Map<String, UsageTx.ReceiptUsage> receiptUsages(LocalDate day) {
      Map<String, UsageTx.ReceiptUsage> out = new HashMap<>();
      Map<String, UsageTx.ReceiptUsage> byWorkspace = usage.get(day);
      if (byWorkspace != null) {
        out.putAll(byWorkspace);
      }
      return out;
    }

    @Override
    public void addReceiptUsage(String workspaceId, LocalDate day, long receipts, long bytes) {
      Map<String, UsageTx.ReceiptUsage> byWorkspace =
          usage.computeIfAbsent(day, d -> new HashMap<>());
      put(
          byWorkspace,
          workspaceId,
          byWorkspace.getOrDefault(workspaceId, UsageTx.ReceiptUsage.NONE).plus(receipts, bytes));
    }

    @Override
    public void addAllowCount(
        String workspaceId, String authorizationId, String scope, LocalDate day, long delta) {
      String k = key(workspaceId, authorizationId, scope, day.toString());
      put(counters, k, counters.getOrDefault(k, 0L) + delta);
    }

    @Override
    public Optional<NonceRow> nonce(String workspaceId, String nonce) {
      return Optional.ofNullable(nonces.get(key(workspaceId, nonce)));
    }

    @Override
    public Optional<NonceRow> openNonce(
        String workspaceId, String authorizationId, String scope, String resource, Instant now) {
      String latest = latestNonce.get(key(workspaceId, authorizationId, scope, resource));
      return Optional.ofNullable(latest == null ? null : nonces.get(key(workspaceId, latest)))
          .filter(n -> n.isOpen(now));
    }

    @Override
    public void insertNonce(NonceRow row) {
      String k = key(row.workspaceId(), row.nonce());
      NonceRow old = nonces.get(k);
      put(nonces, k, row);
      if (old == null) {
        added(MemoryBudget.Kind.NONCE, row.workspaceId(), k, MemoryBudget.size(row));
      } else {
        resized(MemoryBudget.size(row) - MemoryBudget.size(old));
      }
      put(
          latestNonce,
          key(row.workspaceId(), row.authorizationId(), row.scope(), row.resource()),
          row.nonce());
    }

    @Override
    public void updateNonce(NonceRow row) {
      String k = key(row.workspaceId(), row.nonce());
      NonceRow old = nonces.get(k);
      if (old == null) {
        insertNonce(row);
        return;
      }
      put(nonces, k, row);
      resized(MemoryBudget.size(row) - MemoryBudget.size(old));
    }

    @Override
    public Optional<GrantRow> activeGrant(
        String workspaceId, String authorizationId, String scope, String resource, Instant now) {
      return Optional.ofNullable(
              latestGrant.get(key(workspaceId, authorizationId, scope, resource)))
          .filter(g -> g.isActive(now));
    }

    @Override
    public void insertGrant(GrantRow row) {
      String k = key(row.workspaceId(), row.authorizationId(), row.scope(), row.resource());
      GrantRow current = latestGrant.get(k);
      if (current == null || !current.expiresAt().isAfter(row.expiresAt())) {
        put(latestGrant, k, row);
      }
    }

    @Override
    public Optional<EscalationRow> escalation(String workspaceId, String escalationId) {
      return Optional.ofNullable(table(escalations, workspaceId).get(escalationId))
          .map(this::asRead);
    }

    /**
     * The escalation as every read returns it: still pending when its authorization was revoked, it
     * reads with its lifetime ended at the revocation (revocation writes no escalation).
     */
    private EscalationRow asRead(EscalationRow e) {
      if (e.status() != EscalationStatus.Known.PENDING) {
        return e;
      }
      AuthorizationRow a = table(authorizations, e.workspaceId()).get(e.authorizationId());
      Instant revokedAt = a == null ? null : a.revokedAt();
      return revokedAt != null && revokedAt.isBefore(e.expiresAt()) ? e.expiringAt(revokedAt) : e;
    }

    @Override
    public Optional<EscalationRow> latestEscalation(
        String workspaceId, String authorizationId, String scope, String resource) {
      String id = latestEscalation.get(key(workspaceId, authorizationId, scope, resource));
      return id == null ? Optional.empty() : escalation(workspaceId, id);
    }

    @Override
    public void insertEscalation(EscalationRow row) {
      EscalationRow old = table(escalations, row.workspaceId()).get(row.escalationId());
      put(table(escalations, row.workspaceId()), row.escalationId(), row);
      if (old == null) {
        added(
            MemoryBudget.Kind.ESCALATION,
            row.workspaceId(),
            row.escalationId(),
            MemoryBudget.size(row));
      } else {
        resized(MemoryBudget.size(row) - MemoryBudget.size(old));
      }
      put(
          latestEscalation,
          key(row.workspaceId(), row.authorizationId(), row.scope(), row.resource()),
          row.escalationId());
    }

    @Override
    public void updateEscalation(EscalationRow row) {
      EscalationRow old = table(escalations, row.workspaceId()).get(row.escalationId());
      if (old == null) {
        insertEscalation(row);
        return;
      }
      put(table(escalations, row.workspaceId()), row.escalationId(), row);
      resized(MemoryBudget.size(row) - MemoryBudget.size(old));
    }

    @Override
    public Page<EscalationRow> listEscalations(EscalationFilter f, PageRequest page) {
      Page<EscalationRow> rows =
          page(
              table(escalations, f.workspaceId()),
              page,
              e -> f.status() == null || f.status() == asRead(e).effectiveStatus(f.now()));
      return new Page<>(rows.items().stream().map(this::asRead).toList(), rows.hasMore());
    }

    @Override
    public Optional<BundleRow> bundle(String workspaceId, String bundleId) {
      return Optional.ofNullable(table(bundles, workspaceId).get(bundleId));
    }

    @Override
    public void upsertBundle(BundleRow row) {
      put(table(bundles, row.workspaceId()), row.bundleId(), row);
    }

    @Override
    public Page<BundleRow> listActiveBundles(String workspaceId, PageRequest page) {
      return page(table(bundles, workspaceId), page, BundleRow::isActive);
    }

    @Override
    public Optional<TombstoneRow> tombstone(String workspaceId, String resource) {
      return Optional.ofNullable(table(tombstones, workspaceId).get(resource));
    }

    @Override
    public void insertTombstone(TombstoneRow row) {
      put(table(tombstones, row.workspaceId()), row.resource(), row);
    }

    @Override
    public Page<TombstoneRow> listTombstones(String workspaceId, PageRequest page) {
      return page(table(tombstones, workspaceId), page, t -> true);
    }

    @Override
    public Optional<TombstoneRow> tombstonePattern(String workspaceId, String resourcePattern) {
      return Optional.ofNullable(table(tombstonePatterns, workspaceId).get(resourcePattern));
    }

    @Override
    public void insertTombstonePattern(TombstoneRow row) {
      put(table(tombstonePatterns, row.workspaceId()), row.resourcePattern(), row);
    }

    @Override
    public List<String> tombstonePatterns(String workspaceId) {
      TreeMap<String, TombstoneRow> t = tombstonePatterns.get(workspaceId);
      return t == null ? List.of() : List.copyOf(t.keySet());
    }

    @Override
    public Page<TombstoneRow> listTombstonePatterns(String workspaceId, PageRequest page) {
      return page(table(tombstonePatterns, workspaceId), page, t -> true);
    }

    @Override
    public void insertReceipt(ReceiptRow row) {
      TreeMap<String, ReceiptRow> t = table(receipts, row.workspaceId());
      if (t.containsKey(row.receiptId())) {
        throw new StoreException("duplicate receipt id " + row.receiptId());
      }
      put(t, row.receiptId(), row);
      if (!row.isSigned()) {
        put(pending, row.receiptId(), row);
        put(table(pendingByWorkspace, row.workspaceId()), row.receiptId(), row);
      }
      added(MemoryBudget.Kind.RECEIPT, row.workspaceId(), row.receiptId(), MemoryBudget.size(row));
    }

    @Override
    public Optional<ReceiptRow> receipt(String workspaceId, String receiptId) {
      return Optional.ofNullable(table(receipts, workspaceId).get(receiptId));
    }

    @Override
    public Page<ReceiptRow> listReceipts(
        String workspaceId, ReceiptFilter filter, PageRequest page) {
      return page(table(receipts, workspaceId), page, filter::matches);
    }

    @Override
    public List<ReceiptRow> pendingReceipts(String afterId, int limit) {
      return page(pending, new PageRequest(afterId, limit), r -> true).items();
    }

    @Override
    public long countPendingReceipts(long atMost) {
      return Math.min(pending.size(), atMost);
    }

    @Override
    public List<ReceiptRow> pendingReceipts(String workspaceId, String afterId, int limit) {
      return page(
              table(pendingByWorkspace, workspaceId), new PageRequest(afterId, limit), r -> true)
          .items();
    }

    @Override
    public long countPendingReceipts(String workspaceId, long atMost) {
      return Math.min(table(pendingByWorkspace, workspaceId).size(), atMost);
    }

    @Override
    public List<String> pendingWorkspaces(String afterWorkspaceId, int limit) {
      List<String> out = new ArrayList<>();
      var rest =
          afterWorkspaceId == null
              ? pendingByWorkspace
              : pendingByWorkspace.tailMap(afterWorkspaceId, false);
      for (var e : rest.entrySet()) {
        if (out.size() >= limit) {
          break;
        }
        if (!e.getValue().isEmpty()) {
          out.add(e.getKey());
        }
      }
      return out;
    }

    @Override
    public List<ReceiptRow> claimPending(Instant issuedBefore, int limit) {
      return page(pending, PageRequest.first(limit), r -> r.issuedAt().isBefore(issuedBefore))
          .items();
    }

    @Override
    public boolean markSigned(String workspaceId, String receiptId, String signedJson) {
      TreeMap<String, ReceiptRow> t = table(receipts, workspaceId);
      ReceiptRow row = t.get(receiptId);
      Objects.requireNonNull(signedJson);
      if (row == null
          || row.isSigned()
          || !SignedReceiptText.isSignedFormOf(row.payloadJson(), signedJson)) {
        return false;
      }
      ReceiptRow signed = row.withSignedJson(signedJson);
      put(t, receiptId, signed);
      remove(pending, receiptId);
      remove(table(pendingByWorkspace, workspaceId), receiptId);
      log.signed(workspaceId, receiptId);
      resized(MemoryBudget.size(signed) - MemoryBudget.size(row));
      return true;
    }

    // ---- the receipt log (MemoryLog)

    @Override
    public long logSize(String workspaceId) {
      return log.size(workspaceId);
    }

    @Override
    public List<ReceiptRow> unloggedReceipts(String workspaceId, int limit) {
      return log.unlogged(workspaceId, limit);
    }

    @Override
    public List<String> unloggedWorkspaces(String afterWorkspaceId, int limit) {
      return log.unloggedWorkspaces(afterWorkspaceId, limit);
    }

    @Override
    public boolean appendLog(
        String workspaceId, long fromSize, List<String> receiptIds, List<LogTx.Node> nodes) {
      return log.append(workspaceId, fromSize, receiptIds, nodes);
    }

    @Override
    public List<String> uncheckpointedWorkspaces(int limit) {
      return log.uncheckpointed(limit);
    }

    @Override
    public Map<LogTx.NodeId, byte[]> logNodes(
        String workspaceId, java.util.Collection<LogTx.NodeId> ids) {
      return log.nodes(workspaceId, ids);
    }

    @Override
    public java.util.OptionalLong logIndex(String workspaceId, String receiptId) {
      return log.index(workspaceId, receiptId);
    }

    @Override
    public List<LogTx.Entry> logEntries(String workspaceId, long start, int limit) {
      return log.entries(workspaceId, start, limit);
    }

    @Override
    public boolean insertCheckpoint(LogTx.Checkpoint checkpoint) {
      return log.insertCheckpoint(checkpoint);
    }

    @Override
    public Optional<LogTx.Checkpoint> latestCheckpoint(String workspaceId) {
      return log.latestCheckpoint(workspaceId);
    }

    @Override
    public Optional<LogTx.Checkpoint> checkpoint(String workspaceId, long treeSize) {
      return log.checkpoint(workspaceId, treeSize);
    }

    @Override
    public boolean insertCosignature(LogTx.Cosignature cosignature) {
      return log.insertCosignature(cosignature);
    }

    @Override
    public List<LogTx.Cosignature> cosignatures(String workspaceId, long treeSize) {
      return log.cosignatures(workspaceId, treeSize);
    }

    @Override
    public java.util.OptionalLong newestCosignedSize(
        String workspaceId, java.util.Collection<String> witnesses, int atLeast) {
      return log.newestCosignedSize(workspaceId, witnesses, atLeast);
    }

    @Override
    public List<String> logWitnesses(String workspaceId) {
      return log.witnesses(workspaceId);
    }

    @Override
    public void setLogWitnesses(String workspaceId, List<String> vkeys) {
      log.setWitnesses(workspaceId, vkeys);
    }

    @Override
    public Optional<IdempotencyRow> idempotency(String apiKeyHash, String idempotencyKey) {
      return Optional.ofNullable(idempotency.get(key(apiKeyHash, idempotencyKey)));
    }

    @Override
    public void insertIdempotency(IdempotencyRow row) {
      String k = key(row.apiKeyHash(), row.idempotencyKey());
      IdempotencyRow old = idempotency.get(k);
      put(idempotency, k, row);
      if (old != null) {
        resized(-MemoryBudget.size(old));
      }
      added(MemoryBudget.Kind.IDEMPOTENCY, null, k, MemoryBudget.size(row));
    }

    @Override
    public int purgeIdempotency(Instant cutoff) {
      List<String> old = new ArrayList<>();
      idempotency.forEach(
          (k, v) -> {
            if (v.createdAt().isBefore(cutoff)) {
              old.add(k);
            }
          });
      for (String k : old) {
        resized(-MemoryBudget.size(idempotency.get(k)));
        remove(idempotency, k);
      }
      return old.size();
    }
  }
}
