package dev.agentauth.cli;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.ReceiptListParams;
import dev.agentauth.model.ReceiptPage;
import dev.agentauth.model.ReceiptSummary;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code agentauth receipts}: list, export and follow signed receipts ({@code /v1/receipts}). */
@Command(
    name = "receipts",
    mixinStandardHelpOptions = true,
    description = "List, export (NDJSON, for agentauth-verify) and follow the signed receipts.",
    footer = {
      "",
      "Example:",
      "  agentauth receipts export --authorization auth_01HX... > chain.ndjson"
    },
    subcommands = {ReceiptsCommand.ListReceipts.class, ExportCommand.class, TailCommand.class})
final class ReceiptsCommand {

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = {
        "List receipt summaries, oldest first (GET /v1/receipts); filters combine with AND.",
        "One page by default (--limit, then --cursor from the hint on standard error); --all"
            + " fetches every page."
      },
      footer = {
        "",
        "Examples:",
        "  agentauth receipts list --authorization auth_01HX...",
        "  agentauth receipts list --decision deny --from 2026-11-01T00:00:00Z --all"
      })
  static final class ListReceipts extends ApiCommand {
    @Mixin ReceiptFilters filters;

    @Option(
        names = "--limit",
        paramLabel = "N",
        defaultValue = "50",
        description = "Page size, 1-100 (default 50).")
    int limit;

    @Option(names = "--cursor", paramLabel = "CURSOR", description = "Continue after a page.")
    String cursor;

    @Option(names = "--all", description = "Fetch every page.")
    boolean all;

    ListReceipts(Cli cli) {
      super(cli);
    }

    @Override
    int run(AgentAuthClient client) {
      ReceiptListParams params = filters.params(limit).withCursor(cursor);
      ReceiptPage page;
      if (all) {
        List<ReceiptSummary> every = new ArrayList<>();
        client.receipts().listAutoPaging(params).forEach(every::add);
        page = new ReceiptPage(every, false, null);
      } else {
        page = client.receipts().list(params);
      }
      if (json) {
        printJson(page);
        return AgentAuthCli.EXIT_OK;
      }
      Table t =
          new Table(
              "RECEIPT_ID",
              "CREATED_AT",
              "DECISION",
              "SCOPE_OR_EVENT",
              "AUTHORIZATION_ID",
              "SIGNED");
      for (ReceiptSummary s : page.receipts()) {
        t.row(
            s.receiptId(),
            s.createdAt(),
            s.decision(),
            s.scope() != null ? s.scope() : s.event(),
            s.authorizationId(),
            s.signed());
      }
      t.print(cli.out());
      if (page.hasMore()) {
        cli.out().flush();
        cli.err().println("more: add --cursor " + page.nextCursor() + " (or --all)");
      }
      return AgentAuthCli.EXIT_OK;
    }
  }
}
