package dev.agentauth.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.BundleParams;
import dev.agentauth.client.ListParams;
import dev.agentauth.client.NotFoundException;
import dev.agentauth.model.Bundle;
import dev.agentauth.model.BundleRequest;
import dev.agentauth.model.BundleStatus;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code agentauth bundles}: agent scope bundles ({@code /v1/agent-scope-bundles}). */
@Command(
    name = "bundles",
    mixinStandardHelpOptions = true,
    description = "Agent scope bundles (/v1/agent-scope-bundles): reusable scope sets for grants.",
    footer = {"", "Example:", "  agentauth bundles apply -f bundles.yaml --dry-run"},
    subcommands = {BundlesCommand.Apply.class, BundlesCommand.ListBundles.class})
final class BundlesCommand {

  /** The bundle fields a file sets, in the order diffs are printed. */
  static final List<String> FIELDS =
      List.of(
          "agent_id",
          "scopes",
          "requires_confirm_for",
          "requires_escalation_for",
          "escalation_targets",
          "default_expiry_days",
          "description");

  @Command(
      name = "apply",
      mixinStandardHelpOptions = true,
      description = {
        "Make the workspace's bundles match a YAML or JSON file (one bundle, or a list of them):"
            + " creates missing ones, replaces those that differ (PUT), leaves equal ones alone,"
            + " and prints what changed. Running it twice changes nothing the second time.",
        "Bundles not in the file are left as they are. --dry-run prints the changes without"
            + " making them."
      },
      footer = {
        "",
        "Example (bundles.yaml):",
        "  - id: mail-assistant",
        "    agent_id: mail_agent",
        "    default_expiry_days: 30",
        "    scopes:",
        "      - name: email.read",
        "      - name: email.send",
        "        constraints: {max_per_day: 50}",
        "    requires_confirm_for: [email.send]",
        "",
        "  agentauth bundles apply -f bundles.yaml --dry-run",
        "  agentauth bundles apply -f bundles.yaml"
      })
  static final class Apply extends ApiCommand {
    @Option(
        names = {"-f", "--file"},
        required = true,
        paramLabel = "FILE",
        description = "YAML or JSON file; - reads standard input.")
    String file;

    @Option(names = "--dry-run", description = "Print the changes without making them.")
    boolean dryRun;

    private final List<BundleRequest> wanted = new ArrayList<>();

    Apply(Cli cli) {
      super(cli);
    }

    @Override
    void validate() {
      JsonNode node = InputFiles.read(file, cli.in());
      List<JsonNode> items = new ArrayList<>();
      boolean list = node.isArray();
      if (list) {
        node.forEach(items::add);
      } else {
        items.add(node);
      }
      Set<String> ids = new HashSet<>();
      for (int i = 0; i < items.size(); i++) {
        String at = list ? "[" + i + "]" : "";
        JsonNode item = items.get(i);
        if (!item.isObject()) {
          throw CliException.usage(
              file + ": " + (at.isEmpty() ? "" : at + ": ") + "expected a bundle object");
        }
        BundleRequest r = InputFiles.bind(file, at, item, BundleRequest.class);
        if (r.id() == null) {
          throw CliException.usage(file + ": " + InputFiles.join(at, "id") + ": required");
        }
        if (!ids.add(r.id())) {
          throw CliException.usage(
              file + ": " + InputFiles.join(at, "id") + ": bundle " + r.id() + " appears twice");
        }
        wanted.add(r);
      }
    }

    @Override
    int run(AgentAuthClient client) {
      List<Map<String, Object>> report = new ArrayList<>();
      for (BundleRequest want : wanted) {
        Bundle have = current(client, want.id());
        ObjectNode target = normalized(ApiCommand.JSON.valueToTree(want));
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("id", want.id());
        if (have == null) {
          entry.put("action", "create");
          if (!dryRun) {
            client.bundles().create(params(want));
          }
          entry.put("changes", changes(null, target));
        } else {
          ObjectNode now = normalized(ApiCommand.JSON.valueToTree(have));
          Map<String, Object> changes = changes(now, target);
          if (changes.isEmpty()) {
            entry.put("action", "unchanged");
          } else {
            entry.put("action", "update");
            if (!dryRun) {
              client.bundles().edit(want.id(), params(want));
            }
          }
          entry.put("changes", changes);
        }
        report.add(entry);
      }
      if (json) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("dry_run", dryRun);
        out.put("bundles", report);
        printJson(out);
      } else {
        print(report);
      }
      return AgentAuthCli.EXIT_OK;
    }

    private void print(List<Map<String, Object>> report) {
      int created = 0;
      int updated = 0;
      int unchanged = 0;
      for (Map<String, Object> e : report) {
        String action = (String) e.get("action");
        String mark =
            switch (action) {
              case "create" -> "+";
              case "update" -> "~";
              default -> "=";
            };
        cli.out()
            .println(
                mark
                    + " bundle "
                    + e.get("id")
                    + switch (action) {
                      case "create" -> dryRun ? " (would be created)" : " created";
                      case "update" -> dryRun ? " (would be updated)" : " updated";
                      default -> " unchanged";
                    });
        @SuppressWarnings("unchecked")
        Map<String, Map<String, JsonNode>> changes =
            (Map<String, Map<String, JsonNode>>) e.get("changes");
        for (Map.Entry<String, Map<String, JsonNode>> c : changes.entrySet()) {
          JsonNode from = c.getValue().get("from");
          JsonNode to = c.getValue().get("to");
          cli.out()
              .println(
                  "    " + c.getKey() + ": " + ("create".equals(action) ? to : from + " -> " + to));
        }
        switch (action) {
          case "create" -> created++;
          case "update" -> updated++;
          default -> unchanged++;
        }
      }
      cli.out()
          .println(
              (dryRun ? "dry run: " : "")
                  + created
                  + " created, "
                  + updated
                  + " updated, "
                  + unchanged
                  + " unchanged");
    }

    private static Bundle current(AgentAuthClient client, String id) {
      try {
        Bundle b = client.bundles().get(id);
        return b.status() != null && !BundleStatus.ACTIVE.equals(b.status()) ? null : b;
      } catch (NotFoundException e) {
        return null;
      }
    }

    /** Field → {from, to} for every field that differs. */
    private static Map<String, Object> changes(ObjectNode from, ObjectNode to) {
      Map<String, Object> changes = new LinkedHashMap<>();
      for (String f : FIELDS) {
        JsonNode a = from == null ? null : from.get(f);
        JsonNode b = to.get(f);
        if (from == null) {
          if (!isEmpty(b)) {
            Map<String, JsonNode> c = new LinkedHashMap<>();
            c.put("to", b);
            changes.put(f, c);
          }
        } else if (!a.equals(b)) {
          Map<String, JsonNode> c = new LinkedHashMap<>();
          c.put("from", a);
          c.put("to", b);
          changes.put(f, c);
        }
      }
      return changes;
    }

    private static boolean isEmpty(JsonNode n) {
      return n.isNull() || (n.isContainerNode() && n.isEmpty());
    }

    /** The settable fields, absent ones as the service returns them ([] / {} / null). */
    private static ObjectNode normalized(JsonNode node) {
      ObjectNode n = JsonNodeFactory.instance.objectNode();
      for (String f : FIELDS) {
        JsonNode v = node.get(f);
        if (v == null || v.isNull()) {
          switch (f) {
            case "scopes", "requires_confirm_for", "requires_escalation_for" -> n.putArray(f);
            case "escalation_targets" -> n.putObject(f);
            default -> n.putNull(f);
          }
        } else {
          n.set(f, v);
        }
      }
      return n;
    }

    private static BundleParams params(BundleRequest r) {
      BundleParams.Builder b = BundleParams.builder().id(r.id());
      if (r.agentId() != null) {
        b.agentId(r.agentId());
      }
      if (r.scopes() != null) {
        b.scopes(r.scopes());
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
      if (r.defaultExpiryDays() != null) {
        b.defaultExpiryDays(r.defaultExpiryDays());
      }
      if (r.description() != null) {
        b.description(r.description());
      }
      return b.build();
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "List the workspace's active bundles.",
      footer = {"", "Example:", "  agentauth bundles list"})
  static final class ListBundles extends ApiCommand {
    ListBundles(Cli cli) {
      super(cli);
    }

    @Override
    int run(AgentAuthClient client) {
      List<Bundle> all = new ArrayList<>();
      client.bundles().listAutoPaging(ListParams.none().withLimit(100)).forEach(all::add);
      if (json) {
        printJson(Map.of("bundles", all));
        return AgentAuthCli.EXIT_OK;
      }
      Table t = new Table("ID", "AGENT_ID", "SCOPES", "DEFAULT_EXPIRY_DAYS", "UPDATED_AT");
      for (Bundle b : all) {
        t.row(
            b.id(),
            b.agentId(),
            b.scopes() == null ? "-" : b.scopes().stream().map(s -> s.name()).toList().toString(),
            b.defaultExpiryDays(),
            b.updatedAt());
      }
      t.print(cli.out());
      return AgentAuthCli.EXIT_OK;
    }
  }
}
