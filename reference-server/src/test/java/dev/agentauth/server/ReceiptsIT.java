package dev.agentauth.server;

import static dev.agentauth.server.CheckFixtures.ULID;
import static dev.agentauth.server.CheckFixtures.approve;
import static dev.agentauth.server.CheckFixtures.at;
import static dev.agentauth.server.CheckFixtures.authorize;
import static dev.agentauth.server.CheckFixtures.authorizeScopes;
import static dev.agentauth.server.CheckFixtures.check;
import static dev.agentauth.server.CheckFixtures.enc;
import static dev.agentauth.server.CheckFixtures.fieldNames;
import static dev.agentauth.server.CheckFixtures.outcome;
import static dev.agentauth.server.CheckFixtures.receiptId;
import static dev.agentauth.server.CheckFixtures.receiptIds;
import static dev.agentauth.server.CheckFixtures.receipts;
import static dev.agentauth.server.CheckFixtures.resolveOk;
import static dev.agentauth.server.CheckFixtures.revoke;
import static dev.agentauth.server.CheckFixtures.verifiedReceipt;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.store.MemoryStore;
import dev.agentauth.server.store.Store;
import dev.agentauth.verifier.VerificationResult;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Receipts: the pending envelope, {@code GET /v1/receipts/{id}} (pending or signed), {@code
 * ?wait=true}, the signed receipt's members and context layout, listing (filters, order, limits,
 * cursors), and offline verification of whole chains.
 */
class ReceiptsIT {
  private static final String SIGNER_THREAD = "agentauth-signer";

  /**
   * A memory store whose transactions from the signer thread (recognized by the name {@code
   * SigningService} gives its worker) wait while the gate is held, so tests can observe receipts
   * before they are signed; plus hooks to pause or observe the next request-thread transaction.
   */
  static final class GatedStore implements Store {
    private final MemoryStore delegate = new MemoryStore();
    private volatile CountDownLatch gate = new CountDownLatch(0);

    void hold() {
      gate = new CountDownLatch(1);
    }

    void release() {
      gate.countDown();
    }

    private final CountDownLatch signerHeld = new CountDownLatch(1);

    /** Waits until the signer thread is waiting at the held gate. */
    void awaitSignerHeld() {
      await(signerHeld);
    }

    private final AtomicBoolean pauseNext = new AtomicBoolean();
    private final CountDownLatch paused = new CountDownLatch(1);
    private final CountDownLatch resume = new CountDownLatch(1);

    /** Makes the next request-thread transaction wait, once committed, until {@link #resume}. */
    void pauseAfterNextRequestTransaction() {
      pauseNext.set(true);
    }

    void awaitPaused() {
      await(paused);
    }

    void resume() {
      resume.countDown();
    }

    private final AtomicBoolean signalNext = new AtomicBoolean();
    private final CountDownLatch insideTransaction = new CountDownLatch(1);

    /** Makes the next request-thread transaction signal once it runs (holding the store). */
    void signalNextRequestTransaction() {
      signalNext.set(true);
    }

    void awaitInsideTransaction() {
      await(insideTransaction);
    }

    @Override
    public <T> T inTransaction(Work<T> work) {
      boolean signer = Thread.currentThread().getName().startsWith(SIGNER_THREAD);
      if (!signer && signalNext.compareAndSet(true, false)) {
        return delegate.inTransaction(
            tx -> {
              insideTransaction.countDown();
              return work.run(tx);
            });
      }
      if (signer) {
        if (gate.getCount() > 0) {
          signerHeld.countDown();
        }
        await(gate);
      }
      T result = delegate.inTransaction(work);
      if (!signer && pauseNext.compareAndSet(true, false)) {
        paused.countDown();
        await(resume);
      }
      return result;
    }

    private static void await(CountDownLatch latch) {
      try {
        if (!latch.await(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("test gate held for 30 s");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }

    @Override
    public boolean isReachable() {
      return delegate.isReachable();
    }

    @Override
    public String describe() {
      return "gated " + delegate.describe();
    }

    @Override
    public void close() {
      delegate.close();
    }
  }

  private GatedStore store;
  private ServerHarness h;

  @BeforeEach
  void start() {
    store = new GatedStore();
    h = ServerHarness.start(AgentAuthServer.builder().store(store));
  }

  @AfterEach
  void stop() {
    store.release();
    store.resume();
    h.close();
  }

  // ---- envelopes and GET /v1/receipts/{id}

  @Test
  void checkReturnsAPendingEnvelopeWhoseAbsoluteUrlServesTheReceipt() {
    String id = authorizeScopes(h, "email.send");
    store.hold();
    JsonNode receipt = check(h, id, "email.send").result().path("receipt");
    assertThat(fieldNames(receipt))
        .containsExactlyInAnyOrder("status", "receipt_id", "ready_at_estimate", "url");
    assertThat(receipt.path("status").asText()).isEqualTo("pending");
    String rid = receipt.path("receipt_id").asText();
    assertThat(rid).matches(ULID);
    Instant ready = Instant.parse(receipt.path("ready_at_estimate").asText());
    assertThat(ready).isAfterOrEqualTo(ServerHarness.START);
    String url = receipt.path("url").asText();
    assertThat(url).isEqualTo(h.server.baseUrl() + "/v1/receipts/" + rid);

    Resp pending = h.get(url.substring(h.server.baseUrl().length()));
    assertThat(pending.status()).as(pending.raw()).isEqualTo(200);
    assertThat(fieldNames(pending.body()))
        .containsExactlyInAnyOrder("status", "receipt_id", "ready_at_estimate", "url");
    assertThat(pending.body().path("status").asText()).isEqualTo("pending");
    assertThat(pending.body().path("receipt_id").asText()).isEqualTo(rid);
    assertThat(pending.body().path("url").asText()).isEqualTo(url);
    JsonNode summary = receipts(h, "authorization_id=" + id + "&scope=email.send").get(0);
    assertThat(summary.path("signed").asBoolean()).isFalse();

    store.release();
    JsonNode signed = h.signedReceipt(rid);
    Resp done = h.get(url.substring(h.server.baseUrl().length()));
    // log_index joins once the receipt log integrated it (decisions.md §18).
    assertThat(fieldNames(done.body()))
        .contains("status", "receipt")
        .isSubsetOf("status", "receipt", "log_index");
    assertThat(done.body().path("status").asText()).isEqualTo("signed");
    assertThat(done.body().path("receipt")).isEqualTo(signed);
    assertThat(
            receipts(h, "authorization_id=" + id + "&scope=email.send")
                .get(0)
                .path("signed")
                .asBoolean())
        .isTrue();
    h.verifyChain(id);
  }

  @Test
  void issuedAtIsTheDecisionTimeNotTheSigningTime() {
    String id = authorizeScopes(h, "email.send");
    store.hold();
    Instant decided = h.clock.instant();
    String rid = receiptId(check(h, id, "email.send").result());
    h.clock.advance(Duration.ofMinutes(3));
    store.release();
    JsonNode receipt = verifiedReceipt(h, rid);
    assertThat(receipt.path("issued_at").asText()).isEqualTo(at(decided));
    JsonNode summary = receipts(h, "authorization_id=" + id + "&scope=email.send").get(0);
    assertThat(summary.path("created_at").asText()).isEqualTo(receipt.path("issued_at").asText());
    h.verifyChain(id);
  }

  @Test
  void waitTrueReturnsSignedReceiptsInlineThatVerifyOffline() {
    String id = authorizeScopes(h, "email.send", "files.read");
    JsonNode body =
        check(h, id, "email.send", "files.read")
            .waitForSigning()
            .resource("r/1")
            .context("{\"initiated_by\":\"user\",\"n\":[1,{\"x\":null}]}")
            .ok();
    for (String scope : List.of("email.send", "files.read")) {
      JsonNode receipt = body.path("results").path(scope).path("receipt");
      assertThat(receipt.has("status")).isFalse();
      assertThat(receipt.path("signature").path("alg").asText()).isEqualTo("Ed25519");
      assertThat(receipt.path("scope").asText()).isEqualTo(scope);
      VerificationResult result = h.verifier(h.workspaceId()).verify(receipt.toString());
      assertThat(result.valid()).as(result.toString()).isTrue();
      assertThat(receipt).isEqualTo(h.signedReceipt(receipt.path("receipt_id").asText()));
    }
    h.verifyChain(id);
  }

  @Test
  void waitTrueFallsBackToThePendingEnvelopeWhenSigningTakesLongerThanFiveSeconds() {
    String id = authorizeScopes(h, "email.send");
    store.hold();
    long t0 = System.nanoTime();
    JsonNode receipt = check(h, id, "email.send").waitForSigning().result().path("receipt");
    assertThat(Duration.ofNanos(System.nanoTime() - t0))
        .isGreaterThanOrEqualTo(Duration.ofSeconds(4));
    assertThat(receipt.path("status").asText()).isEqualTo("pending");
    assertThat(receipt.has("signature")).isFalse();
    store.release();
    verifiedReceipt(h, receipt.path("receipt_id").asText());
    h.verifyChain(id);
  }

  @Test
  void unknownReceiptIs404() {
    Resp r = h.get("/v1/receipts/01JZZZZZZZZZZZZZZZZZZZZZZZ");
    assertThat(r.status()).as(r.raw()).isEqualTo(404);
    assertThat(r.code()).isEqualTo("not_found");
  }

  // ---- signed receipt members

  @Test
  void signedScopeReceiptHasExactlyTheFormatMembers() {
    String id =
        authorize(
            h,
            "{\"user_id\":\"u_9\",\"agent_id\":\"ag_9\",\"scopes\":[{\"name\":\"email.send\"}]}");
    h.clock.advance(Duration.ofMillis(1234));
    JsonNode receipt = verifiedReceipt(h, receiptId(check(h, id, "email.send").result()));
    assertThat(fieldNames(receipt))
        .containsExactlyInAnyOrder(
            "version",
            "receipt_id",
            "workspace_id",
            "issued_at",
            "decision",
            "reason",
            "user_id",
            "agent_id",
            "scope",
            "resource",
            "context",
            "authorization_id",
            "policy_version",
            "signature");
    assertThat(receipt.path("version").asText()).isEqualTo("1.0");
    assertThat(receipt.path("receipt_id").asText()).matches(ULID);
    assertThat(receipt.path("workspace_id").asText()).isEqualTo(h.workspaceId());
    assertThat(receipt.path("issued_at").asText()).isEqualTo("2026-11-22T10:00:01.234Z");
    assertThat(receipt.path("decision").asText()).isEqualTo("allow");
    assertThat(receipt.path("reason").asText()).isEqualTo("authorization_granted_scope_active");
    assertThat(receipt.path("user_id").asText()).isEqualTo("u_9");
    assertThat(receipt.path("agent_id").asText()).isEqualTo("ag_9");
    assertThat(receipt.path("scope").asText()).isEqualTo("email.send");
    assertThat(receipt.get("resource").isNull()).isTrue();
    assertThat(receipt.path("context").isObject()).isTrue();
    assertThat(receipt.path("context").size()).isZero();
    assertThat(receipt.path("authorization_id").asText()).isEqualTo(id);
    JsonNode sig = receipt.path("signature");
    assertThat(fieldNames(sig)).containsExactlyInAnyOrder("alg", "key_id", "value");
    assertThat(sig.path("alg").asText()).isEqualTo("Ed25519");
    List<String> keyIds = new ArrayList<>();
    h.keys(h.workspaceId()).path("keys").forEach(k -> keyIds.add(k.path("key_id").asText()));
    assertThat(keyIds).contains(sig.path("key_id").asText());
    String value = sig.path("value").asText();
    assertThat(value).matches("[A-Za-z0-9_-]+");
    assertThat(Base64.getUrlDecoder().decode(value)).hasSize(64);
    h.verifyChain(id);
  }

  @Test
  void checkReceiptContextLayout() {
    String id =
        authorize(
            h,
            "{\"scopes\":[{\"name\":\"llm.call\"}],\"budget_limit_micros\":100,"
                + "\"requires_confirm_for\":[\"llm.call\"]}");
    JsonNode confirm =
        check(h, id, "llm.call")
            .cost(10)
            .resource("m/1")
            .session("sess_1")
            .context("{\"initiated_by\":\"user\",\"trace\":{\"depth\":2,\"tags\":[\"a\",\"b\"]}}")
            .result();
    JsonNode ctx = verifiedReceipt(h, receiptId(confirm)).path("context");
    assertThat(fieldNames(ctx)).containsExactlyInAnyOrder("client_context", "session_id", "budget");
    assertThat(ctx.path("client_context"))
        .isEqualTo(
            h.json("{\"initiated_by\":\"user\",\"trace\":{\"depth\":2,\"tags\":[\"a\",\"b\"]}}"));
    assertThat(ctx.path("session_id").asText()).isEqualTo("sess_1");
    assertThat(ctx.path("budget")).isEqualTo(confirm.path("budget"));

    String grant =
        approve(h, confirm.path("confirm_nonce").asText()).path("authorization_id").asText();
    JsonNode allow = check(h, id, "llm.call").cost(10).resource("m/1").result();
    JsonNode allowCtx = verifiedReceipt(h, receiptId(allow)).path("context");
    assertThat(fieldNames(allowCtx))
        .containsExactlyInAnyOrder(
            "budget", "confirmation_authorization_id", "agentauth_confirmation");
    assertThat(allowCtx.path("confirmation_authorization_id").asText()).isEqualTo(grant);
    assertThat(fieldNames(allowCtx.path("agentauth_confirmation")))
        .containsExactlyInAnyOrder("key_id", "role", "via", "confirmed_at");
    assertThat(allowCtx.path("budget").path("spent_after_micros").asLong()).isEqualTo(10);

    String escalated =
        authorize(
            h, "{\"scopes\":[{\"name\":\"pay.send\"}],\"requires_escalation_for\":[\"pay.send\"]}");
    JsonNode esc = check(h, escalated, "pay.send").session("sess_2").result();
    String escId = esc.path("escalation_id").asText();
    JsonNode escCtx = verifiedReceipt(h, receiptId(esc)).path("context");
    assertThat(fieldNames(escCtx)).containsExactlyInAnyOrder("session_id", "escalation_id");
    assertThat(escCtx.path("escalation_id").asText()).isEqualTo(escId);
    resolveOk(h, escId, "approved");
    JsonNode via = check(h, escalated, "pay.send").result();
    JsonNode viaCtx = verifiedReceipt(h, receiptId(via)).path("context");
    assertThat(fieldNames(viaCtx)).containsExactly("escalation_id");
    assertThat(viaCtx.path("escalation_id").asText()).isEqualTo(escId);
    h.verifyChain(id);
    h.verifyChain(escalated);
  }

  // ---- listing

  /** Receipts made at three instants by two users, for the filter tests. */
  private final class Corpus {
    final String authA;
    final String authB;
    final Instant t0 = ServerHarness.START;
    final Instant t1 = ServerHarness.START.plus(Duration.ofMinutes(1));
    final Instant t2 = ServerHarness.START.plus(Duration.ofMinutes(2));
    final String createA;
    final String a1;
    final String a2;
    final String b1;
    final String a3;
    final String b2;
    final String revokeB;

    Corpus() {
      authA =
          authorize(
              h,
              "{\"user_id\":\"u_a\",\"scopes\":[{\"name\":\"doc.read\"},{\"name\":\"doc.write\"}]}");
      createA = receiptIds(h, "authorization_id=" + authA).get(0);
      authB = authorize(h, "{\"user_id\":\"u_b\",\"scopes\":[{\"name\":\"doc.read\"}]}");
      h.clock.set(t1);
      a1 = receiptId(check(h, authA, "doc.read").resource("d/1").session("s1").result());
      a2 = receiptId(check(h, authA, "doc.write").resource("d/1").session("s2").result());
      b1 = receiptId(check(h, authB, "doc.read").resource("d/1").session("s1").result());
      h.clock.set(t2);
      a3 = receiptId(check(h, authA, "doc.admin").resource("d/2").session("s1").result());
      revoke(h, authB);
      revokeB = receiptIds(h, "event=authorization.revoke").get(0);
      b2 = receiptId(check(h, authB, "doc.read").resource("d/2").result());
    }
  }

  @Test
  void everyListFilterSelectsItsReceiptsAndFiltersCombineWithAnd() {
    Corpus c = new Corpus();
    assertThat(receiptIds(h, "authorization_id=" + c.authA))
        .containsExactly(c.createA, c.a1, c.a2, c.a3);
    assertThat(receiptIds(h, "user_id=u_b").size()).isEqualTo(4); // create, b1, revoke, b2
    assertThat(receiptIds(h, "user_id=u_b")).contains(c.b1, c.revokeB, c.b2);
    assertThat(receiptIds(h, "resource=" + enc("d/1"))).containsExactly(c.a1, c.a2, c.b1);
    assertThat(receiptIds(h, "session_id=s1")).containsExactly(c.a1, c.b1, c.a3);
    assertThat(receiptIds(h, "scope=doc.read")).containsExactly(c.a1, c.b1, c.b2);
    assertThat(receiptIds(h, "event=authorization.revoke")).containsExactly(c.revokeB);
    assertThat(receiptIds(h, "event=authorization.create")).hasSize(2).contains(c.createA);
    assertThat(receiptIds(h, "decision=deny")).containsExactly(c.a3, c.b2);
    assertThat(receiptIds(h, "decision=authorization_revoked")).containsExactly(c.revokeB);
    assertThat(receiptIds(h, "decision=allow")).containsExactly(c.a1, c.a2, c.b1);

    assertThat(receiptIds(h, "user_id=u_a&session_id=s1")).containsExactly(c.a1, c.a3);
    assertThat(receiptIds(h, "resource=" + enc("d/1") + "&scope=doc.read&user_id=u_b"))
        .containsExactly(c.b1);
    assertThat(receiptIds(h, "authorization_id=" + c.authB + "&decision=deny"))
        .containsExactly(c.b2);
    assertThat(receiptIds(h, "scope=doc.read&event=authorization.create")).isEmpty();
    assertThat(receiptIds(h, "user_id=nobody")).isEmpty();
    assertThat(receiptIds(h, "resource=d")).isEmpty();
    h.verifyChain(c.authA);
    h.verifyChain(c.authB);
  }

  @Test
  void fromIsInclusiveAndToExclusiveOnIssuedAt() {
    Corpus c = new Corpus();
    assertThat(receiptIds(h, "from=" + enc(at(c.t1))))
        .containsExactly(c.a1, c.a2, c.b1, c.a3, c.revokeB, c.b2);
    assertThat(receiptIds(h, "to=" + enc(at(c.t1)))).hasSize(2).contains(c.createA);
    assertThat(receiptIds(h, "from=" + enc(at(c.t1)) + "&to=" + enc(at(c.t2))))
        .containsExactly(c.a1, c.a2, c.b1);
    assertThat(
            receiptIds(
                h, "from=" + enc(at(c.t1.plusMillis(1))) + "&to=" + enc(at(c.t2.plusMillis(1)))))
        .containsExactly(c.a3, c.revokeB, c.b2);
    // Any RFC 3339 offset is accepted.
    assertThat(receiptIds(h, "from=" + enc("2026-11-22T11:02:00+01:00")))
        .containsExactly(c.a3, c.revokeB, c.b2);
    assertThat(receiptIds(h, "from=" + enc(at(c.t2)) + "&to=" + enc(at(c.t1)))).isEmpty();
    assertThat(receiptIds(h, "from=" + enc(at(c.t1)) + "&decision=allow&user_id=u_a"))
        .containsExactly(c.a1, c.a2);
    h.verifyChain(c.authA);
    h.verifyChain(c.authB);
  }

  @Test
  void summariesCarryTheirReceiptsFieldsAndCreatedAtEqualsIssuedAt() {
    Corpus c = new Corpus();
    for (JsonNode s : receipts(h, "authorization_id=" + c.authB)) {
      assertThat(fieldNames(s))
          .containsExactlyInAnyOrder(
              "receipt_id",
              "authorization_id",
              "scope",
              "event",
              "decision",
              "signed",
              "created_at");
      JsonNode receipt = verifiedReceipt(h, s.path("receipt_id").asText());
      assertThat(s.path("created_at").asText()).isEqualTo(receipt.path("issued_at").asText());
      assertThat(s.path("authorization_id").asText()).isEqualTo(c.authB);
      assertThat(s.path("decision").asText()).isEqualTo(receipt.path("decision").asText());
      if (receipt.has("event")) {
        assertThat(s.get("scope").isNull()).isTrue();
        assertThat(s.path("event").asText()).isEqualTo(receipt.path("event").asText());
      } else {
        assertThat(s.get("event").isNull()).isTrue();
        assertThat(s.path("scope").asText()).isEqualTo(receipt.path("scope").asText());
      }
    }
    h.verifyChain(c.authA);
  }

  @Test
  void listingIsAscendingByReceiptIdWithDefaultAndMaximumPageSizes() {
    String id = authorizeScopes(h, manyScopes(20));
    for (int i = 0; i < 6; i++) {
      h.clock.advance(Duration.ofSeconds(1));
      check(h, id, manyScopes(20)).ok();
    }
    // 1 create + 120 scope receipts.
    Resp first = h.get("/v1/receipts?authorization_id=" + id);
    assertThat(fieldNames(first.body())).containsExactly("receipts", "has_more", "next_cursor");
    assertThat(first.body().path("receipts").size()).isEqualTo(50);
    assertThat(first.body().path("has_more").asBoolean()).isTrue();

    List<String> all = new ArrayList<>();
    String cursor = null;
    int pages = 0;
    do {
      Resp page =
          h.get(
              "/v1/receipts?limit=100&authorization_id="
                  + id
                  + (cursor == null ? "" : "&cursor=" + cursor));
      assertThat(page.status()).as(page.raw()).isEqualTo(200);
      assertThat(page.body().path("receipts").size()).isLessThanOrEqualTo(100);
      page.body().path("receipts").forEach(s -> all.add(s.path("receipt_id").asText()));
      cursor =
          page.body().path("has_more").asBoolean()
              ? page.body().path("next_cursor").asText()
              : null;
      pages++;
    } while (cursor != null);
    assertThat(pages).isEqualTo(2);
    assertThat(all).hasSize(121).doesNotHaveDuplicates().isSorted();
    List<String> small = new ArrayList<>();
    cursor = null;
    do {
      Resp page =
          h.get(
              "/v1/receipts?limit=7&authorization_id="
                  + id
                  + (cursor == null ? "" : "&cursor=" + cursor));
      page.body().path("receipts").forEach(s -> small.add(s.path("receipt_id").asText()));
      cursor =
          page.body().path("has_more").asBoolean()
              ? page.body().path("next_cursor").asText()
              : null;
    } while (cursor != null);
    assertThat(small).isEqualTo(all);
    Resp last =
        h.get(
            "/v1/receipts?limit=100&authorization_id="
                + id
                + "&from="
                + enc(at(h.clock.instant())));
    assertThat(last.body().path("receipts").size()).isEqualTo(20);
    assertThat(last.body().path("has_more").asBoolean()).isFalse();
    assertThat(last.body().get("next_cursor").isNull()).isTrue();
    assertThat(h.verifyChain(id)).isEqualTo(121);
  }

  private static String[] manyScopes(int n) {
    String[] names = new String[n];
    for (int i = 0; i < n; i++) {
      names[i] = "scope.n" + i;
    }
    return names;
  }

  @Test
  void invalidListParametersAre400() {
    String id = authorizeScopes(h, "a.b");
    check(h, id, "a.b").ok();
    check(h, id, "a.b").ok();
    for (String q :
        List.of(
            "limit=0",
            "limit=101",
            "limit=-1",
            "limit=ten",
            "event=authorization.created",
            "event=check",
            "decision=permit",
            "decision=ALLOW",
            "from=yesterday",
            "from=2026-11-22T10:00:00",
            "to=2026-11-22",
            "cursor=not-a-cursor",
            "cursor="
                + Base64.getUrlEncoder()
                    .encodeToString("v1|x|y".getBytes(java.nio.charset.StandardCharsets.UTF_8)))) {
      Resp r = h.get("/v1/receipts?" + q);
      assertThat(r.status()).as(q + " -> " + r.raw()).isEqualTo(400);
      assertThat(r.code()).isEqualTo("invalid_request");
    }
    assertThat(h.get("/v1/receipts?limit=1").status()).isEqualTo(200);
    assertThat(h.get("/v1/receipts?limit=100").status()).isEqualTo(200);
    h.verifyChain(id);
  }

  @Test
  void aCursorIsBoundToItsFilters() {
    String id = authorizeScopes(h, "a.b", "c.d");
    for (int i = 0; i < 3; i++) {
      check(h, id, "a.b", "c.d").session("s").ok();
    }
    Resp page = h.get("/v1/receipts?limit=2&authorization_id=" + id);
    String cursor = page.body().path("next_cursor").asText();
    assertThat(h.get("/v1/receipts?limit=2&authorization_id=" + id + "&cursor=" + cursor).status())
        .isEqualTo(200);
    assertThat(h.get("/v1/receipts?limit=5&authorization_id=" + id + "&cursor=" + cursor).status())
        .isEqualTo(200);
    for (String other :
        List.of(
            "",
            "&scope=a.b",
            "&session_id=s",
            "&decision=allow",
            "&from=" + enc(at(ServerHarness.START)))) {
      String base = other.isEmpty() ? "" : "&authorization_id=" + id;
      Resp r = h.get("/v1/receipts?limit=2" + base + other + "&cursor=" + cursor);
      assertThat(r.status()).as(other + " -> " + r.raw()).isEqualTo(400);
      assertThat(r.fields()).contains("cursor");
    }
    h.verifyChain(id);
  }

  @Test
  void receiptsIssuedJustAfterASigningKeyRotationVerifyOffline() {
    String id = authorizeScopes(h, "email.send");
    verifiedReceipt(h, receiptId(check(h, id, "email.send").result())); // signer has loaded keys
    // Hold the rotation request between its commit and whatever it does afterwards.
    store.pauseAfterNextRequestTransaction();
    CompletableFuture<Resp> rotation =
        CompletableFuture.supplyAsync(
            () ->
                h.admin("/admin/v1/workspaces/" + h.workspaceId() + "/signing-keys/rotate", null));
    store.awaitPaused();
    h.clock.advance(Duration.ofSeconds(1)); // past the cutover: only the new key is valid now
    String afterRotation = receiptId(check(h, id, "email.send").result());
    h.signedReceipt(afterRotation);
    store.resume();
    assertThat(rotation.join().status()).isEqualTo(201);
    JsonNode receipt = verifiedReceipt(h, afterRotation);
    JsonNode keys = h.keys(h.workspaceId()).path("keys");
    assertThat(receipt.path("signature").path("key_id").asText())
        .isEqualTo(keys.get(keys.size() - 1).path("key_id").asText());
    h.verifyChain(id);
  }

  @Test
  void rotatingKeysWhileTheSignerLoadsThemNeitherDeadlocksNorLeavesStaleKeys() throws Exception {
    store.hold();
    // The first receipt makes the signer load the workspace's keys; it waits at the gate.
    String id = authorizeScopes(h, "email.send");
    store.awaitSignerHeld();
    store.signalNextRequestTransaction();
    CompletableFuture<Resp> rotation =
        CompletableFuture.supplyAsync(
            () ->
                h.admin("/admin/v1/workspaces/" + h.workspaceId() + "/signing-keys/rotate", null));
    // Once the rotation holds the store, let the signer go on loading keys.
    store.awaitInsideTransaction();
    store.release();
    Resp rotated = rotation.get(10, TimeUnit.SECONDS);
    assertThat(rotated.status()).as(rotated.raw()).isEqualTo(201);
    h.clock.advance(Duration.ofSeconds(1));
    JsonNode after = verifiedReceipt(h, receiptId(check(h, id, "email.send").result()));
    assertThat(after.path("signature").path("key_id").asText())
        .isEqualTo(rotated.body().path("key_id").asText());
    h.verifyChain(id);
  }

  // ---- chains

  @Test
  void fullChainsWithRevokeAndEscalationResolveVerifyOffline() {
    String id =
        authorize(
            h,
            "{\"scopes\":[{\"name\":\"email.send\"},{\"name\":\"pay.send\"},{\"name\":\"doc.read\"}],"
                + "\"requires_confirm_for\":[\"email.send\"],"
                + "\"requires_escalation_for\":[\"pay.send\"],\"budget_limit_micros\":1000}");
    check(h, id, "doc.read").cost(10).ok();
    check(h, id, "nope").cost(10).ok();
    JsonNode confirm = check(h, id, "email.send").cost(10).result();
    approve(h, confirm.path("confirm_nonce").asText());
    check(h, id, "email.send").cost(10).ok();
    String approved =
        check(h, id, "pay.send").cost(10).resource("i/1").result().path("escalation_id").asText();
    String rejected =
        check(h, id, "pay.send").cost(10).resource("i/2").result().path("escalation_id").asText();
    h.clock.advance(Duration.ofMinutes(1));
    resolveOk(h, approved, "approved");
    resolveOk(h, rejected, "rejected");
    check(h, id, "pay.send").cost(10).resource("i/1").ok();
    check(h, id, "pay.send").cost(10).resource("i/2").ok();
    h.clock.advance(Duration.ofMinutes(1));
    revoke(h, id);
    List<JsonNode> after = new ArrayList<>();
    for (String scope : List.of("doc.read", "email.send", "pay.send")) {
      after.add(check(h, id, scope).cost(10).result());
    }
    assertThat(h.verifyChain(id)).isEqualTo(1 + 6 + 2 + 2 + 1 + 3);
    assertThat(receiptIds(h, "authorization_id=" + id + "&event=escalation.resolve")).hasSize(2);
    assertThat(receiptIds(h, "authorization_id=" + id + "&event=authorization.revoke")).hasSize(1);
    for (JsonNode r : after) {
      assertThat(outcome(r)).isEqualTo("deny/authorization_revoked");
      JsonNode receipt = verifiedReceipt(h, receiptId(r));
      assertThat(receipt.path("decision").asText()).isEqualTo("deny");
      assertThat(receipt.path("reason").asText()).isEqualTo("authorization_revoked");
    }
    List<JsonNode> chain = receipts(h, "authorization_id=" + id);
    assertThat(chain.get(0).path("event").asText()).isEqualTo("authorization.create");
    List<String> created = new ArrayList<>();
    chain.forEach(s -> created.add(s.path("created_at").asText()));
    assertThat(created).isSorted();
  }
}
