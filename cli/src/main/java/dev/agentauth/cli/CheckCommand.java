package dev.agentauth.cli;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.CheckParams;
import dev.agentauth.model.CheckResponse;
import dev.agentauth.model.CheckResult;
import dev.agentauth.model.Decision;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code agentauth check}: decides scopes of a grant ({@code POST /v1/check}). */
@Command(
    name = "check",
    mixinStandardHelpOptions = true,
    description = {
      "Ask for a decision (POST /v1/check) on one or more scopes of a grant. Each scope gets"
          + " allow, deny, confirm or escalate, and a receipt.",
      "Exit status: 0 when every scope is allowed, 1 when any is not (deny, confirm, escalate),"
          + " 2 on bad input. A check is a real decision: it is counted (max_per_day, budget) and"
          + " leaves a signed receipt."
    },
    footer = {
      "",
      "Examples:",
      "  agentauth check auth_01HX... email.send --resource mailbox:42",
      "  agentauth check auth_01HX... docs.read docs.write --json"
    })
final class CheckCommand extends ApiCommand {
  @Parameters(index = "0", paramLabel = "AUTHORIZATION_ID", description = "The grant.")
  String authorizationId;

  @Parameters(index = "1..*", arity = "1..*", paramLabel = "SCOPE", description = "Scope names.")
  List<String> scopes;

  @Option(names = "--resource", paramLabel = "R", description = "Target of the action.")
  String resource;

  @Option(names = "--session", paramLabel = "ID", description = "Session id for the receipt.")
  String session;

  @Option(
      names = "--initiated-by",
      paramLabel = "WHO",
      description = "context.initiated_by (for allowed_initiators).")
  String initiatedBy;

  @Option(
      names = "--cost",
      paramLabel = "MICROS",
      description = "estimated_cost_micros (budgeted grants; one scope).")
  Long cost;

  @Option(names = "--wait", description = "Wait up to 5 s for the receipts to be signed.")
  boolean waitForReceipt;

  CheckCommand(Cli cli) {
    super(cli);
  }

  @Override
  int run(AgentAuthClient client) {
    CheckParams.Builder b = CheckParams.builder().authorizationId(authorizationId).scopes(scopes);
    if (resource != null) {
      b.resource(resource);
    }
    if (session != null) {
      b.sessionId(session);
    }
    if (initiatedBy != null) {
      b.initiatedBy(initiatedBy);
    }
    if (cost != null) {
      b.estimatedCostMicros(cost);
    }
    b.waitForReceipt(waitForReceipt);
    CheckResponse r = client.check(b.build());
    boolean allAllowed = true;
    for (CheckResult result : r.results().values()) {
      allAllowed &= Decision.ALLOW.equals(result.decision());
    }
    if (json) {
      printJson(r);
    } else {
      Table t = new Table("SCOPE", "DECISION", "REASON", "RECEIPT", "NEXT");
      for (Map.Entry<String, CheckResult> e : r.results().entrySet()) {
        CheckResult c = e.getValue();
        t.row(
            e.getKey(),
            c.decision(),
            c.reason(),
            c.receipt() == null ? null : c.receipt().receiptId(),
            next(c));
      }
      t.print(cli.out());
    }
    return allAllowed ? AgentAuthCli.EXIT_OK : AgentAuthCli.EXIT_FAILURE;
  }

  private static String next(CheckResult c) {
    if (c.confirmNonce() != null) {
      return "agentauth confirmations approve " + c.confirmNonce();
    }
    if (c.escalationId() != null) {
      return "agentauth escalations approve " + c.escalationId();
    }
    return "-";
  }
}
