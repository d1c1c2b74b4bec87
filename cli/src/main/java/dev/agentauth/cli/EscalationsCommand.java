package dev.agentauth.cli;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.EscalationListParams;
import dev.agentauth.client.EscalationResolveParams;
import dev.agentauth.model.Escalation;
import dev.agentauth.model.EscalationResolveResponse;
import dev.agentauth.model.EscalationStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code agentauth escalations}: approver decisions ({@code /v1/escalations}). */
@Command(
    name = "escalations",
    mixinStandardHelpOptions = true,
    description = "List escalations and approve or reject them as an approver (/v1/escalations).",
    footer = {"", "Example:", "  agentauth escalations approve esc_01HX... --as mgr_7"},
    subcommands = {
      EscalationsCommand.ListEscalations.class,
      EscalationsCommand.Approve.class,
      EscalationsCommand.Reject.class
    })
final class EscalationsCommand {

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "List escalations, pending ones by default.",
      footer = {"", "Example:", "  agentauth escalations list --status pending"})
  static final class ListEscalations extends ApiCommand {
    @Option(
        names = "--status",
        paramLabel = "STATUS",
        defaultValue = "pending",
        description = "pending (default), approved, rejected, expired, or all.")
    String status;

    ListEscalations(Cli cli) {
      super(cli);
    }

    @Override
    int run(AgentAuthClient client) {
      EscalationListParams params =
          "all".equals(status)
              ? EscalationListParams.none()
              : EscalationListParams.status(EscalationStatus.of(status));
      List<Escalation> all = new ArrayList<>();
      client.escalations().listAutoPaging(params.withLimit(100)).forEach(all::add);
      if (json) {
        printJson(Map.of("escalations", all));
        return AgentAuthCli.EXIT_OK;
      }
      Table t =
          new Table(
              "ESCALATION_ID",
              "STATUS",
              "AUTHORIZATION_ID",
              "SCOPE",
              "RESOURCE",
              "TO",
              "EXPIRES_AT");
      for (Escalation e : all) {
        t.row(
            e.escalationId(),
            e.status(),
            e.authorizationId(),
            e.scope(),
            e.resource(),
            e.escalationTo(),
            e.expiresAt());
      }
      t.print(cli.out());
      return AgentAuthCli.EXIT_OK;
    }
  }

  /** Options shared by approve and reject. */
  abstract static class Resolve extends ApiCommand {
    @Parameters(paramLabel = "ESCALATION_ID", description = "The escalation.")
    String escalationId;

    @Option(
        names = "--as",
        paramLabel = "APPROVER_ID",
        description =
            "resolved_by: the approver's opaque id (required with a full key; an approver key"
                + " uses its own).")
    String resolvedBy;

    @Option(names = "--note", paramLabel = "TEXT", description = "Copied into the receipt.")
    String note;

    Resolve(Cli cli) {
      super(cli);
    }

    abstract boolean approve();

    @Override
    int run(AgentAuthClient client) {
      EscalationResolveParams p =
          approve()
              ? (resolvedBy == null
                  ? EscalationResolveParams.approve()
                  : EscalationResolveParams.approve(resolvedBy))
              : (resolvedBy == null
                  ? EscalationResolveParams.reject()
                  : EscalationResolveParams.reject(resolvedBy));
      if (note != null) {
        p = p.withNote(note);
      }
      EscalationResolveResponse r = client.escalations().resolve(escalationId, p);
      if (json) {
        printJson(r);
      } else {
        cli.out()
            .println(
                "Escalation "
                    + r.escalationId()
                    + " "
                    + r.status()
                    + " by "
                    + r.resolvedBy()
                    + " at "
                    + r.resolvedAt()
                    + (r.receipt() == null
                        ? " (already resolved so; no new receipt)"
                        : " (receipt " + r.receipt().receiptId() + ")"));
      }
      return AgentAuthCli.EXIT_OK;
    }
  }

  @Command(
      name = "approve",
      mixinStandardHelpOptions = true,
      description =
          "Approve an escalation: the next matching re-check of the grant is allowed once. Only"
              + " after a real approver decided.",
      footer = {"", "Example:", "  agentauth escalations approve esc_01HX... --as mgr_7 --note ok"})
  static final class Approve extends Resolve {
    Approve(Cli cli) {
      super(cli);
    }

    @Override
    boolean approve() {
      return true;
    }
  }

  @Command(
      name = "reject",
      mixinStandardHelpOptions = true,
      description = "Reject an escalation: matching re-checks are denied for its lifetime.",
      footer = {"", "Example:", "  agentauth escalations reject esc_01HX... --as mgr_7"})
  static final class Reject extends Resolve {
    Reject(Cli cli) {
      super(cli);
    }

    @Override
    boolean approve() {
      return false;
    }
  }
}
