package dev.agentauth.docs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.client.AuthorizationListParams;
import dev.agentauth.client.AuthorizationRevokeParams;
import dev.agentauth.client.BundleParams;
import dev.agentauth.client.CheckParams;
import dev.agentauth.client.ConflictException;
import dev.agentauth.client.EscalationListParams;
import dev.agentauth.client.EscalationResolveParams;
import dev.agentauth.client.GoneException;
import dev.agentauth.client.ListParams;
import dev.agentauth.client.NotFoundException;
import dev.agentauth.client.ReceiptListParams;
import dev.agentauth.client.UserIds;
import dev.agentauth.model.Authorization;
import dev.agentauth.model.AuthorizationPage;
import dev.agentauth.model.AuthorizationStatus;
import dev.agentauth.model.Bundle;
import dev.agentauth.model.BundlePage;
import dev.agentauth.model.CheckResponse;
import dev.agentauth.model.CheckResult;
import dev.agentauth.model.Decision;
import dev.agentauth.model.Escalation;
import dev.agentauth.model.EscalationStatus;
import dev.agentauth.model.Reason;
import dev.agentauth.model.ReceiptEvent;
import dev.agentauth.model.ReceiptSummary;
import dev.agentauth.model.ScopeConstraints;
import dev.agentauth.model.ScopeEntry;
import dev.agentauth.model.SignedReceipt;
import dev.agentauth.model.Tombstone;
import dev.agentauth.server.AgentAuthServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Java of docs/client.md from "Set up" to "Tombstones", run against one embedded server; each
 * region is the twin of a fence (see {@link DocSnippetsTest}). Names a reader supplies in the doc
 * ({@code userId}, {@code store(...)}, {@code sendEmail()}, ...) are defined here, outside the
 * regions.
 */
class ClientDocSnippetsTest {
  private static DocService service;

  @BeforeAll
  static void start() {
    service = new DocService();
  }

  @AfterAll
  static void stop() {
    service.close();
  }

  // ---- names the reader supplies -------------------------------------------------------------

  /** Where the reader keeps the user-id key. */
  interface SecretStore {
    byte[] load(String name);
  }

  private final SecretStore secrets = name -> "32 random bytes, kept for good!!".getBytes(UTF_8);
  private final Map<String, String> stored = new HashMap<>();
  private final List<String> actions = new ArrayList<>();
  private final List<Escalation> inbox = new ArrayList<>();
  private final List<String> report = new ArrayList<>();

  private void store(String userId, String authorizationId) {
    stored.put(userId, authorizationId);
  }

  private void sendEmail() {
    actions.add("sent");
  }

  private void askTheUser(CheckResult result) {
    actions.add("asked: " + result.confirmNonce());
  }

  private void routeToApprover(CheckResult result) {
    actions.add("routed to " + result.escalationTo() + ": " + result.escalationId());
  }

  private void refuse(Reason reason) {
    actions.add("refused: " + reason);
  }

  private static AuthorizationCreateParams.InlineBuilder grant(String userId) {
    return AuthorizationCreateParams.inline()
        .userId(userId)
        .agentId("support-bot")
        .expiresAt(Instant.now().plus(Duration.ofDays(1)));
  }

  private static CheckResult check(AgentAuthClient client, CheckParams params) {
    return client.check(params).results().get(params.scopes().get(0));
  }

  // ---- Set up ---------------------------------------------------------------------------------

  @Test
  void setUpBuildsOneSharedClient() {
    AgentAuthServer server = service.server;
    // spotless:off
    // @start region="set-up"
    AgentAuthClient client = AgentAuthClient.builder()
        // @replace substring="server.baseUrl()" replacement='"https://agentauth.example.com"':
        .baseUrl(server.baseUrl())        // a path prefix is kept: https://gw/agentauth
        // @replace substring="server.apiKey()" replacement='System.getenv("AGENTAUTH_API_KEY")':
        .apiKey(server.apiKey())
        .build();
    // @end region="set-up"
    // spotless:on

    Authorization a = client.authorizations().create(grant("u_setup").scope("email.send").build());
    assertThat(client.authorizations().get(a.authorizationId()).status())
        .isEqualTo(AuthorizationStatus.ACTIVE);
    assertThat(client.toString()).doesNotContain(server.apiKey());
    assertThat(
            AgentAuthClient.builder()
                .baseUrl("https://gw.example.com/agentauth")
                .build()
                .baseUrl()
                .encodedPath())
        .startsWith("/agentauth");
  }

  @Test
  void derivedClientsShareThePoolAndKeepTheirOwnKey() {
    AgentAuthClient client = service.newWorkspace();
    String otherKey = service.newWorkspaceKey();
    String authId =
        client
            .authorizations()
            .create(grant("u_derive").scope("email.send").build())
            .authorizationId();
    // spotless:off
    // @start region="new-builder"
    AgentAuthClient otherWorkspace = client.newBuilder().apiKey(otherKey).build();
    AgentAuthClient impatient = client.newBuilder().checkTimeout(Duration.ofMillis(300)).build();
    // @end region="new-builder"
    // spotless:on

    // The other key's workspace cannot see this workspace's authorization.
    assertThatThrownBy(() -> otherWorkspace.authorizations().get(authId))
        .isInstanceOf(NotFoundException.class);
    assertThat(check(impatient, CheckParams.of(authId, "email.send")).isAllowed()).isTrue();
    for (AgentAuthClient derived : List.of(otherWorkspace, impatient)) {
      assertThat(derived.okHttpClient().connectionPool())
          .isSameAs(client.okHttpClient().connectionPool());
      assertThat(derived.okHttpClient().dispatcher()).isSameAs(client.okHttpClient().dispatcher());
    }
  }

  @Test
  void aCallersOkHttpClientIsSharedNotModified() {
    String url = service.server.baseUrl();
    String key = service.server.apiKey();
    AtomicInteger seen = new AtomicInteger();
    OkHttpClient myOkHttpClient =
        new OkHttpClient.Builder()
            .addInterceptor(
                chain -> {
                  seen.incrementAndGet();
                  return chain.proceed(chain.request());
                })
            .build();
    long connectTimeout = myOkHttpClient.connectTimeoutMillis();
    // spotless:off
    // @start region="own-okhttp"
    AgentAuthClient client = AgentAuthClient.builder()
        .baseUrl(url).apiKey(key)
        .okHttpClient(myOkHttpClient)
        .build();
    // @end region="own-okhttp"
    // spotless:on

    client.authorizations().list();
    assertThat(seen).as("requests through the caller's interceptor").hasValue(1);
    assertThat(client.okHttpClient()).isNotSameAs(myOkHttpClient);
    assertThat(client.okHttpClient().connectionPool()).isSameAs(myOkHttpClient.connectionPool());
    assertThat(myOkHttpClient.connectTimeoutMillis()).isEqualTo(connectTimeout);
    assertThat(myOkHttpClient.interceptors()).hasSize(1);
  }

  // ---- User ids -------------------------------------------------------------------------------

  @Test
  void userIdsAreKeyedHashesOfTheNormalizedEmail() throws Exception {
    // spotless:off
    // @start region="user-ids"
    byte[] secret = secrets.load("agentauth-user-id-key");   // ≥ 16 random bytes, keep it forever
    String userId = UserIds.keyedHash(secret, "Ada@Example.com");
    // HMAC-SHA256 of "ada@example.com" (trimmed, lower-cased), base64url: 43 characters
    // @end region="user-ids"
    // spotless:on

    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret, "HmacSHA256"));
    String expected =
        Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString(mac.doFinal("ada@example.com".getBytes(UTF_8)));
    assertThat(userId).isEqualTo(expected).hasSize(43);
    assertThat(UserIds.keyedHash(secret, "  ada@EXAMPLE.com ")).isEqualTo(userId);
    // A raw e-mail address never leaves the client.
    assertThatThrownBy(() -> grant("ada@example.com").scope("email.send").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("user_id");
  }

  // ---- Authorizations -------------------------------------------------------------------------

  @Test
  void inlineAuthorizationWithConstrainedScope() {
    AgentAuthClient client = service.newWorkspace();
    String userId = UserIds.keyedHash(secrets.load("k"), "ada@example.com");
    // spotless:off
    // @start region="create-inline"
    Authorization a = client.authorizations().create(AuthorizationCreateParams.inline()
        .userId(userId)
        .agentId("support-bot")
        .scope("email.send")
        .scope("crm.read", ScopeConstraints.builder()
            .maxPerDay(100)                                   // at most 100 allows per UTC day
            .resourcePattern("crm:*")                         // the check's resource must match
            .build())
        .requiresConfirmFor("email.send")
        .expiresAt(Instant.now().plus(Duration.ofDays(30)))   // required: nothing is perpetual
        .putMetadata("ticket", "T-1")
        .build());
    store(userId, a.authorizationId());
    // @end region="create-inline"
    // spotless:on

    assertThat(stored).containsEntry(userId, a.authorizationId());
    assertThat(a.scopes())
        .containsExactly(
            ScopeEntry.of("email.send"),
            ScopeEntry.of("crm.read", new ScopeConstraints(100L, "crm:*", null)));
    assertThat(a.requiresConfirmFor()).containsExactly("email.send");
    assertThat(a.metadata()).containsEntry("ticket", "T-1");
    String id = a.authorizationId();
    CheckParams crm =
        CheckParams.builder()
            .authorizationId(id)
            .scope("crm.read")
            .resource("crm:contact/7")
            .build();
    assertThat(check(client, crm).decision()).isEqualTo(Decision.ALLOW);
    CheckParams billing =
        CheckParams.builder().authorizationId(id).scope("crm.read").resource("billing:7").build();
    assertThat(check(client, billing).reason()).isEqualTo(Reason.SCOPE_NOT_AUTHORIZED);
    assertThat(check(client, CheckParams.of(id, "email.send")).decision())
        .isEqualTo(Decision.CONFIRM);
  }

  @Test
  void authorizationFromABundle() {
    AgentAuthClient client = service.newWorkspace();
    String userId = "u_bundle";
    client
        .bundles()
        .create(
            BundleParams.builder()
                .id("support-bot-default")
                .agentId("support-bot")
                .scope("email.send")
                .defaultExpiryDays(30)
                .build());
    // spotless:off
    // @start region="create-from-bundle"
    Authorization b = client.authorizations().create(
        AuthorizationCreateParams.fromBundle("support-bot-default").userId(userId).build());
    // @end region="create-from-bundle"
    // spotless:on

    assertThat(b.bundleId()).isEqualTo("support-bot-default");
    assertThat(b.agentId()).isEqualTo("support-bot");
    assertThat(b.scopes()).containsExactly(ScopeEntry.of("email.send"));
    assertThat(b.expiresAt()).isEqualTo(b.createdAt().plus(Duration.ofDays(30)));
  }

  @Test
  void readListAndRevoke() {
    AgentAuthClient client = service.newWorkspace();
    String userId = "u_revoke";
    String authId =
        client.authorizations().create(grant(userId).scope("email.send").build()).authorizationId();
    String anotherAuthId =
        client.authorizations().create(grant(userId).scope("crm.read").build()).authorizationId();
    // spotless:off
    // @start region="read-list-revoke"
    Authorization current = client.authorizations().get(authId);          // status: active/revoked/expired
    AuthorizationPage page = client.authorizations().list(
        AuthorizationListParams.builder().userId(userId).status(AuthorizationStatus.ACTIVE).build());

    client.authorizations().revoke(authId);                                // revoked_by: api_key
    // or, naming who revoked it and why (both are written into the revocation receipt):
    client.authorizations().revoke(anotherAuthId,
        AuthorizationRevokeParams.builder().revokedBy("admin_17").notes("user left").build());
    // @end region="read-list-revoke"
    // spotless:on

    assertThat(current.status()).isEqualTo(AuthorizationStatus.ACTIVE);
    assertThat(page.authorizations())
        .extracting(Authorization::authorizationId)
        .containsExactlyInAnyOrder(authId, anotherAuthId);
    assertThat(client.authorizations().get(authId).status()).isEqualTo(AuthorizationStatus.REVOKED);
    assertThat(revocationContext(client, authId)).containsEntry("revoked_by", "api_key");
    assertThat(revocationContext(client, anotherAuthId))
        .containsEntry("revoked_by", "admin_17")
        .containsEntry("notes", "user left");
    assertThatThrownBy(() -> client.authorizations().revoke(authId))
        .isInstanceOfSatisfying(
            ConflictException.class, e -> assertThat(e.code()).isEqualTo("already_revoked"));
  }

  private static Map<String, Object> revocationContext(AgentAuthClient client, String authId) {
    ReceiptSummary revocation =
        client
            .receipts()
            .list(
                ReceiptListParams.builder()
                    .authorizationId(authId)
                    .event(ReceiptEvent.AUTHORIZATION_REVOKE)
                    .build())
            .receipts()
            .get(0);
    SignedReceipt signed =
        client.receipts().awaitSigned(revocation.receiptId(), Duration.ofSeconds(10));
    return signed.context();
  }

  // ---- Checks ---------------------------------------------------------------------------------

  /** The Checks snippet, as an agent runs it before each action. */
  private void checkThenAct(AgentAuthClient client, String authId, String sessionId) {
    // spotless:off
    // @start region="check"
    CheckResponse r = client.check(CheckParams.builder()
        .authorizationId(authId)
        .scope("email.send")
        .resource("mailbox:42")
        .sessionId(sessionId)
        .initiatedBy("user")              // context.initiated_by, matched by allowed_initiators
        .build());

    CheckResult email = r.results().get("email.send");
    switch (email.decision().value()) {
      case "allow" -> sendEmail();
      case "confirm" -> askTheUser(email);            // see Confirmations
      case "escalate" -> routeToApprover(email);      // see Escalations
      default -> refuse(email.reason());              // deny: e.g. scope_not_authorized
    }
    // @end region="check"
    // spotless:on
  }

  @Test
  void checkResultsDecideWhatTheAgentDoes() {
    AgentAuthClient client = service.newWorkspace();
    ScopeConstraints mailboxesForTheUser =
        ScopeConstraints.builder().resourcePattern("mailbox:*").allowedInitiators("user").build();
    String allowed =
        client
            .authorizations()
            .create(grant("u_1").scope("email.send", mailboxesForTheUser).build())
            .authorizationId();
    String confirm =
        client
            .authorizations()
            .create(grant("u_1").scope("email.send").requiresConfirmFor("email.send").build())
            .authorizationId();
    String escalate =
        client
            .authorizations()
            .create(
                grant("u_1")
                    .scope("email.send")
                    .requiresEscalationFor("email.send")
                    .escalationTarget("email.send", "security")
                    .build())
            .authorizationId();
    String otherScope =
        client.authorizations().create(grant("u_1").scope("crm.read").build()).authorizationId();
    String otherInitiator =
        client
            .authorizations()
            .create(
                grant("u_1")
                    .scope(
                        "email.send", ScopeConstraints.builder().allowedInitiators("agent").build())
                    .build())
            .authorizationId();

    for (String authId : List.of(allowed, confirm, escalate, otherScope, otherInitiator)) {
      checkThenAct(client, authId, "sess_1");
    }
    // An unknown authorization is a result too (the service answers 200), not an exception.
    checkThenAct(client, "auth_does_not_exist", "sess_1");

    assertThat(actions).hasSize(6);
    assertThat(actions.get(0)).isEqualTo("sent");
    assertThat(actions.get(1)).startsWith("asked: ").hasSizeGreaterThan("asked: ".length() + 8);
    assertThat(actions.get(2)).startsWith("routed to security: ");
    assertThat(actions.subList(3, 6))
        .containsExactly(
            "refused: scope_not_authorized",
            "refused: scope_not_authorized",
            "refused: authorization_not_found");
  }

  // ---- Confirmations --------------------------------------------------------------------------

  /** The Confirmations snippet: the end-user's answer to a {@code confirm} result. */
  private CheckResponse answerConfirmation(
      AgentAuthClient client,
      CheckResponse r,
      CheckResult email,
      CheckParams sameParams,
      boolean userApproved) {
    // spotless:off
    // @start region="confirm"
    if (userApproved) {
      // re-checks of the same scope and resource allow for 5 minutes (1–300 s; approve(nonce): 60 s)
      client.confirmations().approve(email.confirmNonce(), Duration.ofMinutes(5));
      r = client.check(sameParams);                                     // now allow
    } else {
      client.confirmations().decline(email.confirmNonce());             // the next check asks again
    }
    // @end region="confirm"
    // spotless:on
    return r;
  }

  @Test
  void confirmationsApproveOrDecline() {
    AgentAuthClient client = service.newWorkspace();
    String authId =
        client
            .authorizations()
            .create(grant("u_confirm").scope("email.send").requiresConfirmFor("email.send").build())
            .authorizationId();

    CheckParams sameParams =
        CheckParams.builder()
            .authorizationId(authId)
            .scope("email.send")
            .resource("mailbox:42")
            .build();
    CheckResponse r = client.check(sameParams);
    CheckResult email = r.results().get("email.send");
    assertThat(email.decision()).isEqualTo(Decision.CONFIRM);
    r = answerConfirmation(client, r, email, sameParams, true);
    assertThat(r.results().get("email.send").reason())
        .isEqualTo(Reason.AUTHORIZATION_GRANTED_VIA_CONFIRMATION);
    assertThat(check(client, sameParams).isAllowed()).as("a re-check in the window").isTrue();
    // A used nonce is gone.
    assertThatThrownBy(() -> client.confirmations().approve(email.confirmNonce()))
        .isInstanceOfSatisfying(
            GoneException.class,
            e -> {
              assertThat(e.statusCode()).isEqualTo(410);
              assertThat(e.code()).isEqualTo("nonce_gone");
            });

    CheckParams otherMailbox =
        CheckParams.builder()
            .authorizationId(authId)
            .scope("email.send")
            .resource("mailbox:43")
            .build();
    CheckResponse declined = client.check(otherMailbox);
    CheckResult asked = declined.results().get("email.send");
    assertThat(answerConfirmation(client, declined, asked, otherMailbox, false)).isSameAs(declined);
    CheckResult again = check(client, otherMailbox);
    assertThat(again.decision()).isEqualTo(Decision.CONFIRM);
    assertThat(again.confirmNonce()).isNotEqualTo(asked.confirmNonce());
  }

  // ---- Escalations ----------------------------------------------------------------------------

  /** The first Escalations snippet: an approver's decision, then the agent's re-check. */
  private CheckResponse resolveEscalation(
      AgentAuthClient client, String escalationId, CheckParams sameParams, CheckResponse r) {
    // spotless:off
    // @start region="escalation-resolve"
    client.escalations().resolve(escalationId,
        EscalationResolveParams.approve("approver_7").withNote("ticket SEC-112"));
    // or EscalationResolveParams.reject("approver_7")
    r = client.check(sameParams);   // allow, once, after an approval
    // @end region="escalation-resolve"
    // spotless:on
    return r;
  }

  @Test
  void escalationsAreListedResolvedAndAllowOnce() {
    AgentAuthClient client = service.newWorkspace();
    String authId =
        client
            .authorizations()
            .create(
                grant("u_escalate")
                    .scope("payments.refund")
                    .requiresEscalationFor("payments.refund")
                    .escalationTarget("payments.refund", "finance")
                    .build())
            .authorizationId();
    CheckParams sameParams =
        CheckParams.builder()
            .authorizationId(authId)
            .scope("payments.refund")
            .resource("order:4711")
            .build();
    CheckResponse r = client.check(sameParams);
    CheckResult first = r.results().get("payments.refund");
    assertThat(first.decision()).isEqualTo(Decision.ESCALATE);
    assertThat(first.escalationTo()).isEqualTo("finance");
    String escalationId = first.escalationId();

    // spotless:off
    // @start region="escalation-list"
    for (Escalation e : client.escalations().listAutoPaging(
        EscalationListParams.status(EscalationStatus.PENDING))) {
      inbox.add(e);
    }
    Escalation one = client.escalations().get(escalationId);
    // @end region="escalation-list"
    // spotless:on
    assertThat(inbox).extracting(Escalation::escalationId).containsExactly(escalationId);
    assertThat(one.status()).isEqualTo(EscalationStatus.PENDING);
    assertThat(one.escalationTo()).isEqualTo("finance");
    assertThat(one.resource()).isEqualTo("order:4711");

    r = resolveEscalation(client, escalationId, sameParams, r);
    assertThat(r.results().get("payments.refund").reason())
        .isEqualTo(Reason.AUTHORIZATION_GRANTED_VIA_ESCALATION);
    // Once consumed, the approval cannot be resolved again, in either direction.
    assertThatThrownBy(
            () ->
                client
                    .escalations()
                    .resolve(escalationId, EscalationResolveParams.reject("approver_7")))
        .isInstanceOfSatisfying(
            ConflictException.class, e -> assertThat(e.code()).isEqualTo("escalation_conflict"));

    // The approval allowed once: the next check escalates anew.
    CheckResult next = check(client, sameParams);
    assertThat(next.decision()).isEqualTo(Decision.ESCALATE);
    assertThat(next.escalationId()).isNotEqualTo(escalationId);
    // Repeating a resolution answers normally, without a new receipt; the other one is refused.
    EscalationResolveParams reject = EscalationResolveParams.reject("approver_7");
    assertThat(client.escalations().resolve(next.escalationId(), reject).receipt()).isNotNull();
    assertThat(client.escalations().resolve(next.escalationId(), reject).receipt()).isNull();
    assertThatThrownBy(
            () ->
                client
                    .escalations()
                    .resolve(next.escalationId(), EscalationResolveParams.approve("approver_7")))
        .isInstanceOfSatisfying(
            ConflictException.class, e -> assertThat(e.code()).isEqualTo("escalation_conflict"));
    assertThat(check(client, sameParams).reason()).isEqualTo(Reason.ESCALATION_REJECTED);
  }

  // ---- Bundles --------------------------------------------------------------------------------

  @Test
  void bundlesAreStoredEditedAndDeleted() {
    AgentAuthClient client = service.newWorkspace();
    // spotless:off
    // @start region="bundles"
    BundleParams bundle = BundleParams.builder()
        .id("support-bot-default")
        .agentId("support-bot")
        .scope("email.send").scope("crm.read")
        .requiresConfirmFor("email.send")
        .defaultExpiryDays(30)
        .description("What the support bot may do for a customer")
        .build();

    client.bundles().create(bundle);                                // 409 bundle_exists if active
    Bundle b = client.bundles().get("support-bot-default");
    BundlePage page = client.bundles().list();
    client.bundles().edit("support-bot-default", bundle);           // replaces every member
    client.bundles().delete("support-bot-default");                 // soft delete
    // @end region="bundles"
    // spotless:on

    assertThat(b.agentId()).isEqualTo("support-bot");
    assertThat(b.scopes()).containsExactly(ScopeEntry.of("email.send"), ScopeEntry.of("crm.read"));
    assertThat(b.requiresConfirmFor()).containsExactly("email.send");
    assertThat(b.defaultExpiryDays()).isEqualTo(30L);
    assertThat(page.bundles()).extracting(Bundle::id).containsExactly("support-bot-default");
    assertThatThrownBy(() -> client.bundles().get("support-bot-default"))
        .isInstanceOf(NotFoundException.class);
    assertThat(client.bundles().list().bundles()).isEmpty();
    // A deleted id can be created again; an active one cannot.
    client.bundles().create(bundle);
    assertThatThrownBy(() -> client.bundles().create(bundle))
        .isInstanceOfSatisfying(
            ConflictException.class, e -> assertThat(e.code()).isEqualTo("bundle_exists"));
  }

  // ---- Tombstones -----------------------------------------------------------------------------

  @Test
  void aTombstoneBlocksTheResourceForEveryCheck() {
    AgentAuthClient client = service.newWorkspace();
    String authId =
        client
            .authorizations()
            .create(grant("u_tomb").scope("email.send").build())
            .authorizationId();
    // spotless:off
    // @start region="tombstones"
    client.tombstones().create("mailbox:42", "account closed");
    client.tombstones().createPattern("archive/*", "archived mail is read-only");
    for (Tombstone t : client.tombstones().listAutoPaging(ListParams.none())) {
      String what = t.resource() != null ? t.resource() : "pattern " + t.resourcePattern();
      report.add(what + ": " + t.reason());
    }
    // @end region="tombstones"
    // spotless:on

    assertThat(report)
        .containsExactly(
            "mailbox:42: account closed", "pattern archive/*: archived mail is read-only");
    CheckParams.Builder params = CheckParams.builder().authorizationId(authId).scope("email.send");
    assertThat(check(client, params.resource("mailbox:42").build()).reason())
        .isEqualTo(Reason.RESOURCE_TOMBSTONED);
    assertThat(check(client, params.resource("mailbox:43").build()).isAllowed()).isTrue();
    assertThat(check(client, params.resource("archive/2024/7").build()).reason())
        .isEqualTo(Reason.RESOURCE_TOMBSTONED);
  }
}
