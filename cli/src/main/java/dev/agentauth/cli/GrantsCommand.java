package dev.agentauth.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.client.AuthorizationListParams;
import dev.agentauth.client.AuthorizationRevokeParams;
import dev.agentauth.model.Authorization;
import dev.agentauth.model.AuthorizationStatus;
import dev.agentauth.model.CreateAuthorizationRequest;
import dev.agentauth.model.RevokeAuthorizationResponse;
import dev.agentauth.model.ScopeEntry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code agentauth grants}: the service's authorizations ({@code /v1/authorizations}), what an end
 * user allows an agent to do.
 */
@Command(
    name = "grants",
    mixinStandardHelpOptions = true,
    description =
        "Grants are the service's authorizations (/v1/authorizations): user X allows agent Y these"
            + " scopes until a time. Create from a file, list, show, revoke.",
    footer = {"", "Example:", "  agentauth grants create -f grant.yaml"},
    subcommands = {
      GrantsCommand.Create.class,
      GrantsCommand.ListGrants.class,
      GrantsCommand.Show.class,
      GrantsCommand.Revoke.class
    })
final class GrantsCommand {

  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description = {
        "Create a grant (POST /v1/authorizations) from a YAML or JSON file holding the request:"
            + " user_id, and either agent_id + scopes or bundle_id; expires_at, requires_confirm_for,"
            + " requires_escalation_for, escalation_targets, budget_limit_micros, metadata.",
        "The file is checked locally first: an unknown or mistyped field fails with its path and"
            + " exit status 2."
      },
      footer = {
        "",
        "Example (grant.yaml):",
        "  user_id: user_42",
        "  agent_id: mail_agent",
        "  expires_at: 2026-12-31T00:00:00Z",
        "  scopes:",
        "    - name: email.read",
        "    - name: email.send",
        "      constraints: {max_per_day: 20}",
        "  requires_confirm_for: [email.send]",
        "",
        "  agentauth grants create -f grant.yaml",
        "  agentauth grants create -f grant.yaml --expires-in 30d --json"
      })
  static final class Create extends ApiCommand {
    @Option(
        names = {"-f", "--file"},
        required = true,
        paramLabel = "FILE",
        description = "YAML or JSON request file; - reads standard input.")
    String file;

    @Option(
        names = "--expires-in",
        paramLabel = "DURATION",
        converter = Durations.class,
        description = "Set expires_at to now plus this (30d, 12h), replacing the file's.")
    Duration expiresIn;

    private AuthorizationCreateParams params;

    Create(Cli cli) {
      super(cli);
    }

    @Override
    void validate() {
      JsonNode node = InputFiles.read(file, cli.in());
      if (!node.isObject()) {
        throw CliException.usage(
            file + ": expected an object (the grant), found " + node.getNodeType());
      }
      CreateAuthorizationRequest r =
          InputFiles.bind(file, "", node, CreateAuthorizationRequest.class);
      params = params(r);
    }

    private AuthorizationCreateParams params(CreateAuthorizationRequest r) {
      if (r.userId() == null) {
        throw CliException.usage(file + ": user_id: required");
      }
      Instant expires = expiresIn != null ? Instant.now().plus(expiresIn) : r.expiresAt();
      AuthorizationCreateParams.Builder<?> b;
      if (r.bundleId() != null) {
        if (r.agentId() != null || r.scopes() != null) {
          throw CliException.usage(
              file + ": bundle_id: a grant from a bundle takes neither agent_id nor scopes");
        }
        b = AuthorizationCreateParams.fromBundle(r.bundleId());
      } else {
        if (r.agentId() == null) {
          throw CliException.usage(file + ": agent_id: required (or bundle_id)");
        }
        if (r.scopes() == null || r.scopes().isEmpty()) {
          throw CliException.usage(file + ": scopes: required, at least one");
        }
        if (expires == null) {
          throw CliException.usage(file + ": expires_at: required (or --expires-in)");
        }
        List<ScopeEntry> scopes = r.scopes();
        for (int i = 0; i < scopes.size(); i++) {
          if (scopes.get(i) == null || scopes.get(i).name() == null) {
            throw CliException.usage(file + ": scopes[" + i + "].name: required");
          }
        }
        b = AuthorizationCreateParams.inline().agentId(r.agentId()).scopes(scopes);
      }
      b.userId(r.userId());
      if (expires != null) {
        b.expiresAt(expires);
      }
      if (r.requiresConfirmFor() != null) {
        b.requiresConfirmFor(r.requiresConfirmFor().toArray(String[]::new));
      }
      if (r.requiresEscalationFor() != null) {
        b.requiresEscalationFor(r.requiresEscalationFor().toArray(String[]::new));
      }
      if (r.escalationTargets() != null) {
        r.escalationTargets().forEach(b::escalationTarget);
      }
      if (r.budgetLimitMicros() != null) {
        b.budgetLimitMicros(r.budgetLimitMicros());
      }
      if (r.metadata() != null) {
        b.metadata(r.metadata());
      }
      try {
        return b.build();
      } catch (IllegalArgumentException | IllegalStateException e) {
        throw CliException.usage(file + ": " + e.getMessage());
      }
    }

    @Override
    int run(AgentAuthClient client) {
      Authorization a = client.authorizations().create(params);
      if (json) {
        printJson(a);
      } else {
        cli.out().println("Created grant " + a.authorizationId());
        show(a, cli);
      }
      return AgentAuthCli.EXIT_OK;
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "List grants (GET /v1/authorizations); filters combine with AND.",
      footer = {"", "Example:", "  agentauth grants list --user user_42 --status active"})
  static final class ListGrants extends ApiCommand {
    @Option(names = "--user", paramLabel = "USER_ID", description = "Only this end user's.")
    String user;

    @Option(names = "--agent", paramLabel = "AGENT_ID", description = "Only this agent's.")
    String agent;

    @Option(names = "--status", paramLabel = "STATUS", description = "active, revoked or expired.")
    String status;

    @Option(
        names = "--max",
        paramLabel = "N",
        defaultValue = "1000",
        description = "Stop after N grants (default 1000).")
    int max;

    ListGrants(Cli cli) {
      super(cli);
    }

    @Override
    int run(AgentAuthClient client) {
      AuthorizationListParams.Builder b = AuthorizationListParams.builder().limit(100);
      if (user != null) {
        b.userId(user);
      }
      if (agent != null) {
        b.agentId(agent);
      }
      if (status != null) {
        b.status(AuthorizationStatus.of(status));
      }
      List<Authorization> all = new ArrayList<>();
      for (Authorization a : client.authorizations().listAutoPaging(b.build())) {
        if (all.size() >= max) {
          break;
        }
        all.add(a);
      }
      if (json) {
        printJson(Map.of("authorizations", all));
        return AgentAuthCli.EXIT_OK;
      }
      Table t =
          new Table("AUTHORIZATION_ID", "STATUS", "USER_ID", "AGENT_ID", "SCOPES", "EXPIRES_AT");
      for (Authorization a : all) {
        t.row(a.authorizationId(), a.status(), a.userId(), a.agentId(), scopes(a), a.expiresAt());
      }
      t.print(cli.out());
      return AgentAuthCli.EXIT_OK;
    }
  }

  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description = "Show one grant (GET /v1/authorizations/{id}).",
      footer = {"", "Example:", "  agentauth grants show auth_01HX... --json"})
  static final class Show extends ApiCommand {
    @Parameters(paramLabel = "AUTHORIZATION_ID", description = "The grant's authorization id.")
    String id;

    Show(Cli cli) {
      super(cli);
    }

    @Override
    int run(AgentAuthClient client) {
      Authorization a = client.authorizations().get(id);
      if (json) {
        printJson(a);
      } else {
        show(a, cli);
      }
      return AgentAuthCli.EXIT_OK;
    }
  }

  @Command(
      name = "revoke",
      mixinStandardHelpOptions = true,
      description =
          "Revoke a grant (DELETE /v1/authorizations/{id}); later checks are denied. Revoking twice"
              + " fails (409).",
      footer = {"", "Example:", "  agentauth grants revoke auth_01HX... --notes 'left the team'"})
  static final class Revoke extends ApiCommand {
    @Parameters(paramLabel = "AUTHORIZATION_ID", description = "The grant's authorization id.")
    String id;

    @Option(names = "--revoked-by", paramLabel = "ACTOR", description = "Who revokes (opaque id).")
    String revokedBy;

    @Option(names = "--notes", paramLabel = "TEXT", description = "Why; kept in the receipt.")
    String notes;

    Revoke(Cli cli) {
      super(cli);
    }

    @Override
    int run(AgentAuthClient client) {
      AuthorizationRevokeParams.Builder b = AuthorizationRevokeParams.builder();
      if (revokedBy != null) {
        b.revokedBy(revokedBy);
      }
      if (notes != null) {
        b.notes(notes);
      }
      RevokeAuthorizationResponse r = client.authorizations().revoke(id, b.build());
      if (json) {
        printJson(r);
      } else {
        cli.out()
            .println(
                "Revoked "
                    + r.authorizationId()
                    + " at "
                    + r.revokedAt()
                    + " (receipt "
                    + cell(r.receipt() == null ? null : r.receipt().receiptId())
                    + ")");
      }
      return AgentAuthCli.EXIT_OK;
    }
  }

  static String scopes(Authorization a) {
    return a.scopes() == null
        ? "-"
        : a.scopes().stream().map(ScopeEntry::name).collect(Collectors.joining(","));
  }

  static String join(List<String> values) {
    return values == null || values.isEmpty() ? "-" : String.join(",", values);
  }

  static void show(Authorization a, Cli cli) {
    new Table("FIELD", "VALUE")
        .row("authorization_id", a.authorizationId())
        .row("status", a.status())
        .row("user_id", a.userId())
        .row("agent_id", a.agentId())
        .row("bundle_id", a.bundleId())
        .row("scopes", scopes(a))
        .row("requires_confirm_for", join(a.requiresConfirmFor()))
        .row("requires_escalation_for", join(a.requiresEscalationFor()))
        .row("expires_at", a.expiresAt())
        .row("created_at", a.createdAt())
        .row("revoked_at", a.revokedAt())
        .print(cli.out());
  }
}
