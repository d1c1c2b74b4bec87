package dev.agentauth.examples;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.client.BundleParams;
import dev.agentauth.client.CheckParams;
import dev.agentauth.client.EscalationResolveParams;
import dev.agentauth.client.ReceiptListParams;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.model.Authorization;
import dev.agentauth.model.CheckResponse;
import dev.agentauth.model.CheckResult;
import dev.agentauth.model.PendingReceipt;
import dev.agentauth.model.ReceiptRef;
import dev.agentauth.model.ReceiptSummary;
import dev.agentauth.model.ScopeConstraints;
import dev.agentauth.model.SignedReceipt;
import dev.agentauth.model.WorkspaceKeys;
import dev.agentauth.server.AgentAuthServer;
import dev.agentauth.verifier.ChainReport;
import dev.agentauth.verifier.ChainVerifier;
import dev.agentauth.verifier.ReceiptVerifier;
import dev.agentauth.verifier.VerificationResult;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The whole agentauth story in one run: it starts the reference server in-process, grants an agent
 * a set of scopes, and walks through every kind of decision — allow, the deny reasons, confirm then
 * user approval, escalate then approver resolution, a budget, revocation — then fetches every
 * signed receipt and verifies each one, and each authorization's whole chain, offline with nothing
 * but the workspace's published public keys.
 *
 * <p>Run it with {@code mvn -B -q -pl examples -am package -DskipTests && java -jar
 * examples/target/agentauth-quickstart.jar}.
 */
public final class Quickstart {
  private static final Duration SIGN_TIMEOUT = Duration.ofSeconds(10);

  private final PrintStream out;
  private final AgentAuthClient client;
  private final List<String> authorizations = new ArrayList<>();

  private Quickstart(PrintStream out, AgentAuthClient client) {
    this.out = out;
    this.client = client;
  }

  public static void main(String[] args) {
    int verified = run(System.out);
    System.exit(verified > 0 ? 0 : 1);
  }

  /** Runs the story, printing a transcript; returns how many receipts were verified offline. */
  public static int run(PrintStream out) {
    try (AgentAuthServer server = AgentAuthServer.builder().port(0).build().start()) {
      out.println("agentauth quickstart");
      out.println(
          "started an embedded reference server at "
              + server.baseUrl()
              + " (workspace "
              + server.workspaceId()
              + ", plan pro)");
      AgentAuthClient client =
          AgentAuthClient.builder().baseUrl(server.baseUrl()).apiKey(server.apiKey()).build();
      return new Quickstart(out, client).story(server.workspaceId());
    }
  }

  private int story(String workspaceId) {
    Instant inThirtyDays = Instant.now().plus(30, ChronoUnit.DAYS);

    section("1. A reusable scope bundle for the outreach agent");
    client
        .bundles()
        .create(
            BundleParams.builder()
                .id("outreach-agent")
                .agentId("outreach_agent")
                .scope("email.send", ScopeConstraints.builder().maxPerDay(2).build())
                .scope(
                    "calendar.read",
                    ScopeConstraints.builder().resourcePattern("calendar:team/*").build())
                .scope("files.delete")
                .scope("payments.send")
                .requiresConfirmFor("files.delete")
                .requiresEscalationFor("payments.send")
                .escalationTarget("payments.send", "finance")
                .defaultExpiryDays(30)
                .description(
                    "Sends outreach e-mail, reads the team calendar, tidies files, pays invoices")
                .build());
    say(
        "bundle outreach-agent: email.send (max 2/day), calendar.read (calendar:team/*),"
            + " files.delete (needs the user's confirmation), payments.send (needs finance's approval)");

    section("2. The user grants the agent the bundle");
    Authorization auth =
        client
            .authorizations()
            .create(
                AuthorizationCreateParams.fromBundle("outreach-agent")
                    .userId("user_8821")
                    .putMetadata("granted_via", "quickstart")
                    .build());
    authorizations.add(auth.authorizationId());
    say(
        "authorization "
            + auth.authorizationId()
            + " for user_8821 / outreach_agent, expires "
            + AgentAuthJson.formatInstant(auth.expiresAt()));
    String id = auth.authorizationId();

    section("3. Allow, and the reasons for deny");
    check(id, "email.send", "mailbox:alice", null);
    check(id, "crm.export", null, null);
    check(id, "calendar.read", "calendar:team/standup", null);
    check(id, "calendar.read", "calendar:ceo/private", null);
    check(id, "email.send", "mailbox:bob", null);
    check(id, "email.send", "mailbox:carol", null);
    client.tombstones().create("file:/payroll/2026.xlsx", "legal hold");
    say("tombstoned file:/payroll/2026.xlsx (legal hold)");
    check(id, "files.delete", "file:/payroll/2026.xlsx", null);

    section("4. Confirm: the user approves, the agent re-checks");
    CheckResult confirm = check(id, "files.delete", "file:/tmp/report-draft.txt", null);
    say(
        "the app shows the user: \"Allow outreach_agent to "
            + confirm.confirmPromptHint()
            + " file:/tmp/report-draft.txt?\" — the user clicks Allow");
    client.confirmations().approve(confirm.confirmNonce(), Duration.ofSeconds(60));
    check(id, "files.delete", "file:/tmp/report-draft.txt", null);

    section("5. Escalate: finance approves once");
    CheckResult escalate = check(id, "payments.send", "invoice:INV-1042", null);
    say("routed to " + escalate.escalationTo() + " as escalation " + escalate.escalationId());
    client
        .escalations()
        .resolve(
            escalate.escalationId(),
            EscalationResolveParams.approve("approver_finance_17")
                .withNote("invoice matches PO-77"));
    say("approver_finance_17 approved");
    check(id, "payments.send", "invoice:INV-1042", null);
    check(id, "payments.send", "invoice:INV-1042", null);

    section("6. A budget: an LLM agent with $1.00 to spend");
    Authorization budgeted =
        client
            .authorizations()
            .create(
                AuthorizationCreateParams.inline()
                    .userId("user_8821")
                    .agentId("research_agent")
                    .scope("llm.call")
                    .expiresAt(inThirtyDays)
                    .budgetLimitMicros(1_000_000)
                    .build());
    authorizations.add(budgeted.authorizationId());
    check(budgeted.authorizationId(), "llm.call", null, 400_000L);
    check(budgeted.authorizationId(), "llm.call", null, 400_000L);
    check(budgeted.authorizationId(), "llm.call", null, 400_000L);

    section("7. Revocation");
    client.authorizations().revoke(id);
    say("the user revoked " + id);
    check(id, "email.send", "mailbox:alice", null);
    check("auth_does_not_exist", "email.send", null, null);

    section("8. Offline verification with only the published keys");
    WorkspaceKeys keys = client.workspaces().keys(workspaceId);
    say(
        "fetched "
            + keys.keys().size()
            + " public key(s) of "
            + workspaceId
            + " from the unauthenticated keys endpoint");
    ReceiptVerifier verifier =
        ReceiptVerifier.builder().keysJson(client.workspaces().keysJson(workspaceId)).build();
    int verified = 0;
    Set<String> inChains = new HashSet<>();
    List<String> allIds = new ArrayList<>();
    for (ReceiptSummary s : client.receipts().listAutoPaging(ReceiptListParams.builder().build())) {
      allIds.add(s.receiptId());
    }
    for (String auditedAuth : authorizations) {
      // The authorization's receipts as served, oldest first: what an auditor verifies.
      List<String> chain = client.receipts().chainJson(auditedAuth, SIGN_TIMEOUT);
      for (String json : chain) {
        VerificationResult result = verifier.verify(json);
        if (!result.valid()) {
          throw new IllegalStateException("receipt " + result.receiptId() + " failed: " + result);
        }
        inChains.add(result.receiptId());
        verified++;
      }
      ChainReport report = new ChainVerifier(verifier).verify(chain);
      say(
          "chain of "
              + auditedAuth
              + ": "
              + chain.size()
              + " receipts, "
              + (report.valid() ? "valid" : "INVALID " + report.problems()));
      if (!report.valid()) {
        throw new IllegalStateException("chain " + auditedAuth + " failed: " + report.problems());
      }
    }
    for (String rid : allIds) { // receipts outside any chain: the check of an unknown id
      if (inChains.contains(rid)) {
        continue;
      }
      VerificationResult result =
          verifier.verify(client.receipts().awaitSignedJson(rid, SIGN_TIMEOUT));
      if (!result.valid()) {
        throw new IllegalStateException("receipt " + rid + " failed: " + result);
      }
      say("receipt " + rid + " (unknown authorization id): valid");
      verified++;
    }
    out.println();
    out.println(verified + " receipts verified offline");
    return verified;
  }

  private CheckResult check(String authorizationId, String scope, String resource, Long cost) {
    CheckParams.Builder p = CheckParams.builder().authorizationId(authorizationId).scope(scope);
    if (resource != null) {
      p.resource(resource);
    }
    if (cost != null) {
      p.estimatedCostMicros(cost);
    }
    CheckResponse response = client.check(p.build());
    CheckResult r = response.results().get(scope);
    StringBuilder line = new StringBuilder();
    line.append(
        String.format(
            "check %-14s %-30s -> %-8s %s",
            scope, resource == null ? "" : resource, r.decision().value(), r.reason().value()));
    if (r.budget() != null) {
      line.append(
          String.format(
              " (budget: spent %d + estimate %d of %d)",
              r.budget().spentMicros(),
              r.budget().estimatedCostMicros(),
              r.budget().limitMicros()));
    }
    line.append("  receipt ").append(receiptId(r.receipt()));
    say(line.toString());
    return r;
  }

  private static String receiptId(ReceiptRef ref) {
    if (ref instanceof PendingReceipt p) {
      return p.receiptId();
    }
    return ((SignedReceipt) ref).receiptId();
  }

  private void section(String title) {
    out.println();
    out.println("== " + title);
  }

  private void say(String text) {
    out.println("   " + text);
  }
}
