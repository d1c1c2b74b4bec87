package dev.agentauth.client.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationRevokeParams;
import dev.agentauth.client.CheckParams;
import dev.agentauth.client.NotFoundException;
import dev.agentauth.client.ReceiptListParams;
import dev.agentauth.client.RequestOptions;
import dev.agentauth.model.Authorization;
import dev.agentauth.model.CheckResponse;
import dev.agentauth.model.CheckResult;
import dev.agentauth.model.Decision;
import dev.agentauth.model.PendingReceipt;
import dev.agentauth.model.ReceiptEvent;
import dev.agentauth.model.ReceiptLookup;
import dev.agentauth.model.ReceiptPage;
import dev.agentauth.model.ReceiptSummary;
import dev.agentauth.model.RevokeAuthorizationResponse;
import dev.agentauth.model.SignedReceipt;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Receipts through the client: auto-paging long chains, filters, cursors and signature waits. */
class ClientReceiptsIT {
  private static final int CHECKS = 260;

  private ItServer it;

  @BeforeEach
  void start() {
    it = ItServer.start();
  }

  @AfterEach
  void stop() {
    it.close();
  }

  @Test
  void autoPagingWalksAChainOfMoreThan250ReceiptsPageByPage() {
    Authorization a = it.authorize("email.send");
    String id = a.authorizationId();
    CheckParams check = CheckParams.of(id, "email.send");
    // 260 checks, a few in flight at a time through the async client (keeps the test fast)
    List<CompletableFuture<CheckResponse>> inFlight = new ArrayList<>();
    for (int i = 0; i < CHECKS; i++) {
      inFlight.add(
          it.client.async().check(check, RequestOptions.builder().timeout(ItServer.AWAIT).build()));
    }
    List<String> issued = new ArrayList<>();
    issued.add(a.receipt().receiptId());
    for (CompletableFuture<CheckResponse> f : inFlight) {
      CheckResult r = f.join().results().get("email.send");
      assertThat(r.decision()).isEqualTo(Decision.ALLOW);
      assertThat(r.fallback()).isNull();
      issued.add(r.receipt().receiptId());
    }
    // receipt ids are monotonic ULIDs: issuance order is id order
    Collections.sort(issued);

    AtomicInteger pageFetches = new AtomicInteger();
    AgentAuthClient counting =
        it.clientBuilder()
            .okHttpClient(
                ItServer.OK_HTTP
                    .newBuilder()
                    .addInterceptor(
                        chain -> {
                          if (chain.request().url().encodedPath().equals("/v1/receipts")) {
                            pageFetches.incrementAndGet();
                          }
                          return chain.proceed(chain.request());
                        })
                    .build())
            .build();

    // default page size 50: 261 receipts take 6 pages, fetched lazily
    var all =
        counting.receipts().listAutoPaging(ReceiptListParams.builder().authorizationId(id).build());
    assertThat(pageFetches).hasValue(0);
    List<ReceiptSummary> summaries = all.stream().toList();
    assertThat(pageFetches).hasValue(6);
    assertThat(summaries).hasSize(CHECKS + 1);
    assertThat(summaries).extracting(ReceiptSummary::receiptId).containsExactlyElementsOf(issued);
    assertThat(summaries.get(0).event()).isEqualTo(ReceiptEvent.AUTHORIZATION_CREATE);
    assertThat(summaries.subList(1, summaries.size()))
        .allSatisfy(
            s -> {
              assertThat(s.decision()).isEqualTo(Decision.ALLOW);
              assertThat(s.scope()).isEqualTo("email.send");
              assertThat(s.event()).isNull();
              assertThat(s.authorizationId()).isEqualTo(id);
            });

    // only the first page when iteration stops early; each iteration starts over
    pageFetches.set(0);
    assertThat(all.iterator().next().receiptId()).isEqualTo(issued.get(0));
    assertThat(pageFetches).hasValue(1);
    assertThat(
            counting
                .receipts()
                .listAutoPaging(
                    ReceiptListParams.builder()
                        .authorizationId(id)
                        .decision(Decision.ALLOW)
                        .limit(100)
                        .build())
                .stream()
                .count())
        .isEqualTo(CHECKS);

    // page by page with the cursor
    ReceiptListParams params = ReceiptListParams.builder().authorizationId(id).limit(100).build();
    List<String> paged = new ArrayList<>();
    ReceiptPage page = it.client.receipts().list(params);
    paged.addAll(page.receipts().stream().map(ReceiptSummary::receiptId).toList());
    while (page.hasMore()) {
      page = it.client.receipts().list(params.withCursor(page.nextCursor()));
      paged.addAll(page.receipts().stream().map(ReceiptSummary::receiptId).toList());
    }
    assertThat(page.nextCursor()).isNull();
    assertThat(paged).isEqualTo(issued);

    // every receipt of the chain, fetched through the client, verifies; so does the chain
    assertThat(it.verifyChain(id)).hasSize(CHECKS + 1);
  }

  @Test
  void listFiltersCombineWithAnd() {
    Authorization a = it.authorize("email.send", "crm.read");
    String id = a.authorizationId();
    Instant t0 = it.clock.instant();
    it.client.check(
        CheckParams.builder()
            .authorizationId(id)
            .scopes("email.send", "crm.read")
            .resource("r:1")
            .sessionId("s1")
            .build());
    Instant t1 = it.clock.advance(Duration.ofMinutes(1));
    it.client.check(CheckParams.builder().authorizationId(id).scope("pay.send").build());
    it.clock.advance(Duration.ofMinutes(1));
    it.client.authorizations().revoke(id);

    assertThat(ids(ReceiptListParams.builder().authorizationId(id).scope("crm.read"))).hasSize(1);
    assertThat(ids(ReceiptListParams.builder().authorizationId(id).decision(Decision.DENY)))
        .hasSize(1);
    assertThat(ids(ReceiptListParams.builder().userId(a.userId()).resource("r:1"))).hasSize(2);
    assertThat(ids(ReceiptListParams.builder().sessionId("s1"))).hasSize(2);
    assertThat(ids(ReceiptListParams.builder().event(ReceiptEvent.AUTHORIZATION_REVOKE)))
        .hasSize(1);
    assertThat(ids(ReceiptListParams.builder().authorizationId(id).from(t0).to(t1))).hasSize(3);
    assertThat(ids(ReceiptListParams.builder().authorizationId(id).from(t1))).hasSize(2);
    assertThat(it.verifyChain(id)).hasSize(5);
  }

  private List<String> ids(ReceiptListParams.Builder params) {
    return it.client.receipts().listAutoPaging(params.build()).stream()
        .map(ReceiptSummary::receiptId)
        .toList();
  }

  @Test
  void awaitSignedTurnsAPendingEnvelopeIntoTheSignedReceipt() {
    Authorization a = it.authorize("email.send");
    CheckResult r =
        it.client
            .check(CheckParams.of(a.authorizationId(), "email.send"))
            .results()
            .get("email.send");
    assertThat(r.receipt()).isInstanceOf(PendingReceipt.class);
    String receiptId = r.receipt().receiptId();

    SignedReceipt byRef = it.client.receipts().awaitSigned(r.receipt(), Duration.ofSeconds(5));
    SignedReceipt byId = it.client.receipts().awaitSigned(receiptId, Duration.ofSeconds(5));
    assertThat(byRef).isEqualTo(byId);
    assertThat(byRef.receiptId()).isEqualTo(receiptId);
    it.assertVerifies(byRef);
    assertThat(it.client.receipts().get(receiptId)).isEqualTo(new ReceiptLookup.Signed(byRef));
    assertThat(
            it
                .client
                .receipts()
                .listAutoPaging(
                    ReceiptListParams.builder().authorizationId(a.authorizationId()).build())
                .stream())
        .allSatisfy(s -> assertThat(s.signed()).isTrue());

    assertThatThrownBy(
            () ->
                it.client
                    .receipts()
                    .awaitSigned("01ARZ3NDEKTSV4RRFFQ69G5FAV", Duration.ofSeconds(2)))
        .isInstanceOf(NotFoundException.class);
  }

  @Test
  void waitForReceiptReturnsSignedReceiptsInline() {
    Authorization a =
        it.client.authorizations().create(it.inline("email.send").waitForReceipt(true).build());
    assertThat(a.receipt()).isInstanceOf(SignedReceipt.class);
    SignedReceipt created = it.assertVerifies((SignedReceipt) a.receipt());
    assertThat(created.event()).isEqualTo(ReceiptEvent.AUTHORIZATION_CREATE);

    CheckResult r =
        it.client
            .check(
                CheckParams.builder()
                    .authorizationId(a.authorizationId())
                    .scope("email.send")
                    .waitForReceipt(true)
                    .build())
            .results()
            .get("email.send");
    assertThat(r.receipt()).isInstanceOf(SignedReceipt.class);
    SignedReceipt signed = it.assertVerifies((SignedReceipt) r.receipt());
    assertThat(signed.decision()).isEqualTo(Decision.ALLOW);
    // already signed: returned as is, no polling
    assertThat(it.client.receipts().awaitSigned(r.receipt(), Duration.ofMillis(1)))
        .isSameAs(signed);
    assertThat(it.client.receipts().awaitSigned(signed.receiptId(), ItServer.AWAIT))
        .isEqualTo(signed);

    RevokeAuthorizationResponse revoked =
        it.client
            .authorizations()
            .revoke(
                a.authorizationId(),
                AuthorizationRevokeParams.builder().waitForReceipt(true).build());
    assertThat(revoked.receipt()).isInstanceOf(SignedReceipt.class);
    it.assertVerifies((SignedReceipt) revoked.receipt());
    assertThat(it.verifyChain(a.authorizationId()))
        .extracting(SignedReceipt::receiptId)
        .containsExactly(created.receiptId(), signed.receiptId(), revoked.receipt().receiptId());
  }

  @Test
  void awaitSignedIsNotHeldUpWhenTheServerClockRunsAheadOfTheClient() {
    // The server's clock is days ahead of the client's (a test clock moved forward, or plain
    // skew): its ready_at_estimate lies far in the client's future, although signing takes
    // microseconds. Waiting for it would stall every awaitSigned for seconds.
    it.clock.advance(Duration.ofDays(4));
    Authorization a = it.authorize("email.send");
    CheckResult r =
        it.client
            .check(CheckParams.of(a.authorizationId(), "email.send"))
            .results()
            .get("email.send");
    assertThat(((PendingReceipt) r.receipt()).readyAtEstimate())
        .isAfter(Instant.now().plusSeconds(60));

    long started = System.nanoTime();
    SignedReceipt signed = it.client.receipts().awaitSigned(r.receipt(), ItServer.AWAIT);
    SignedReceipt created = it.client.receipts().awaitSigned(a.receipt(), ItServer.AWAIT);
    Duration took = Duration.ofNanos(System.nanoTime() - started);

    assertThat(took).isLessThan(Duration.ofSeconds(2));
    it.assertVerifies(signed);
    it.assertVerifies(created);
  }

  @Test
  void receiptsSignedBeforeAndAfterAKeyRotationVerifyAgainstThePublishedKeys() {
    Authorization a = it.authorize("email.send");
    CheckResult before =
        it.client
            .check(CheckParams.of(a.authorizationId(), "email.send"))
            .results()
            .get("email.send");
    it.signed(before.receipt());

    it.clock.advance(Duration.ofMinutes(1));
    it.rotateSigningKey();
    it.clock.advance(Duration.ofMinutes(1));
    CheckResult after =
        it.client
            .check(CheckParams.of(a.authorizationId(), "email.send"))
            .results()
            .get("email.send");

    var keys = it.client.workspaces().keys(it.workspaceId()).keys();
    assertThat(keys).hasSize(2);
    assertThat(keys.get(0).activeUntil()).isNotNull();
    SignedReceipt old = it.signed(before.receipt());
    SignedReceipt fresh = it.signed(after.receipt());
    assertThat(old.signature().keyId()).isEqualTo(keys.get(0).keyId());
    assertThat(fresh.signature().keyId()).isEqualTo(keys.get(1).keyId());
    assertThat(it.verifyChain(a.authorizationId())).hasSize(3);
  }

  @Test
  void receiptsWithNullsUnicodeControlCharactersAndLargeIntegersSurviveTheClientsRoundTrip() {
    Map<String, Object> nested = new LinkedHashMap<>();
    nested.put("absent", null);
    nested.put("list", Arrays.asList(1, null, "x", true, List.of()));
    nested.put("empty", Map.of());
    Map<String, Object> context = new LinkedHashMap<>();
    context.put("note", "line1\nline2\ttab \u0001 ü € 😀 \"quoted\" back\\slash");
    context.put("nested", nested);
    context.put("max_safe", 9_007_199_254_740_991L);
    context.put("min_safe", -9_007_199_254_740_991L);
    context.put("zero", 0);
    context.put("Zeta", "upper-case key sorts first");
    context.put("é", "non-ASCII key");

    Authorization a =
        it.client.authorizations().create(it.inline("email.send").metadata(context).build());
    CheckResult r =
        it.client
            .check(
                CheckParams.builder()
                    .authorizationId(a.authorizationId())
                    .scope("email.send")
                    .resource("mailbox:ü/😀")
                    .sessionId("sess ü")
                    .context(context)
                    .build())
            .results()
            .get("email.send");

    SignedReceipt check = it.signed(r.receipt());
    SignedReceipt created = it.signed(a.receipt());
    assertThat(check.resource()).isEqualTo("mailbox:ü/😀");
    assertThat(ItServer.MAPPER.valueToTree(check.context()).path("client_context"))
        .isEqualTo(ItServer.MAPPER.valueToTree(context));
    assertThat(ItServer.MAPPER.valueToTree(created.context()).path("metadata"))
        .isEqualTo(ItServer.MAPPER.valueToTree(context));
    assertThat(it.verifyChain(a.authorizationId())).hasSize(2);
  }
}
