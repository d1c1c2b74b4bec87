package dev.agentauth.server.service;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.f4b6a3.ulid.UlidFactory;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.server.engine.DecisionEngine;
import dev.agentauth.server.signing.SigningService;
import dev.agentauth.server.store.Store;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;

/**
 * What every operation shares: store, clock, engine, id sources, receipt factory, signer and
 * receipt quotas.
 */
public final class ServiceContext {
  private final Store store;
  private final Clock clock;
  private final SigningService signer;
  private final ReceiptQuotas quotas;
  private final SecureRandom random = new SecureRandom();
  private final UlidFactory ulids = UlidFactory.newMonotonicInstance();
  private final DecisionEngine engine;
  private final ReceiptFactory receipts;
  private final ObjectMapper mapper = AgentAuthJson.newObjectMapper();
  private final WebhookEvents webhookEvents;

  public ServiceContext(
      Store store, Clock clock, SigningService signer, ReceiptQuotas.Limits quotaLimits) {
    this(store, clock, signer, quotaLimits, null);
  }

  /**
   * @param publicUrl the server's public base URL without a trailing slash (webhook events link to
   *     the console under it), or null when unknown
   */
  public ServiceContext(
      Store store,
      Clock clock,
      SigningService signer,
      ReceiptQuotas.Limits quotaLimits,
      String publicUrl) {
    this.store = store;
    this.clock = clock;
    this.signer = signer;
    this.quotas = new ReceiptQuotas(store, clock, quotaLimits);
    this.engine = new DecisionEngine(() -> "cn_" + token(24), () -> "esc_" + ulid());
    this.receipts = new ReceiptFactory(this::ulid);
    this.webhookEvents = new WebhookEvents(mapper, this::ulid, publicUrl);
  }

  /** The webhook events what happens causes. */
  public WebhookEvents webhookEvents() {
    return webhookEvents;
  }

  public Store store() {
    return store;
  }

  /** The current time, truncated to milliseconds (the precision of every stored timestamp). */
  public Instant now() {
    return Instant.ofEpochMilli(clock.millis());
  }

  public Clock clock() {
    return clock;
  }

  public SigningService signer() {
    return signer;
  }

  /** The per-workspace receipt quotas. */
  public ReceiptQuotas quotas() {
    return quotas;
  }

  public DecisionEngine engine() {
    return engine;
  }

  public ReceiptFactory receipts() {
    return receipts;
  }

  public ObjectMapper mapper() {
    return mapper;
  }

  /** A fresh monotonic ULID (26 characters). */
  public synchronized String ulid() {
    return ulids.create().toString();
  }

  /** {@code bytes} random bytes as unpadded base64url. */
  public String token(int bytes) {
    byte[] b = new byte[bytes];
    random.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  /** Random bytes. */
  public byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }
}
