package dev.agentauth.cli;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.ConnectionException;
import dev.agentauth.client.ReceiptListParams;
import dev.agentauth.client.ReceiptWaitTimeoutException;
import dev.agentauth.client.ServerException;
import dev.agentauth.model.ReceiptPage;
import dev.agentauth.model.ReceiptSummary;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code agentauth receipts tail}: follows new receipts live.
 *
 * <p>How it never skips or repeats one: receipts are listed in ascending {@code receipt_id} order.
 * The command remembers the cursor of the page it is reading (the page's own request cursor, not
 * its {@code next_cursor}, which is null on the last page) and the ids it printed from that page
 * (at most a page, 100). Each poll asks for that page again and prints the receipts it has not
 * printed yet; when the page is full ({@code has_more}) it moves on to {@code next_cursor}. So a
 * poll re-reads at most one page, and after a dropped connection or a server restart the next poll
 * resumes from the same position: no gap, no duplicate. A receipt still being signed is waited for
 * (with {@code --json}) before anything after it is printed, so the order holds.
 */
@Command(
    name = "tail",
    mixinStandardHelpOptions = true,
    description = {
      "Follow receipts live, oldest first, each printed once: a summary line, or with --json the"
          + " signed receipt as served (NDJSON, for agentauth-verify).",
      "Starts with receipts issued from now on (this machine's clock) unless --from or"
          + " --from-start says otherwise. After a lost connection it backs off, reconnects and"
          + " resumes where it stopped, without a gap or a duplicate. Stops on Ctrl-C or after"
          + " --count receipts."
    },
    footer = {
      "",
      "Examples:",
      "  agentauth receipts tail --decision deny",
      "  agentauth receipts tail --json --authorization auth_01HX... >> chain.ndjson"
    })
final class TailCommand extends ApiCommand {
  static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
  static final Duration FIRST_BACKOFF = Duration.ofMillis(500);

  @Mixin ReceiptFilters filters;

  @Option(names = "--from-start", description = "Start with the oldest matching receipt.")
  boolean fromStart;

  @Option(
      names = "--count",
      paramLabel = "N",
      description = "Stop after N receipts (default: follow until interrupted).")
  Long count;

  @Option(
      names = "--poll-interval",
      paramLabel = "DURATION",
      converter = Durations.class,
      defaultValue = "1s",
      description = "How often to ask for new receipts (default 1s).")
  Duration pollInterval;

  @Option(
      names = "--wait-timeout",
      paramLabel = "DURATION",
      converter = Durations.class,
      defaultValue = "30s",
      description = "How long to wait for one receipt's signature before saying so (default 30s).")
  Duration waitTimeout;

  private Duration backoff = FIRST_BACKOFF;
  private boolean down;

  TailCommand(Cli cli) {
    super(cli);
  }

  @Override
  int run(AgentAuthClient client) throws InterruptedException {
    if (!fromStart && filters.from == null) {
      filters.from = Instant.now();
    }
    ReceiptListParams params = filters.params(100);
    String pageCursor = null;
    Set<String> printedOnPage = new HashSet<>();
    long printed = 0;
    while (count == null || printed < count) {
      final String cursor = pageCursor;
      ReceiptPage page = retrying(() -> client.receipts().list(params.withCursor(cursor)));
      for (ReceiptSummary s : page.receipts()) {
        if (printedOnPage.contains(s.receiptId())) {
          continue;
        }
        emit(client, s);
        printedOnPage.add(s.receiptId());
        printed++;
        if (count != null && printed >= count) {
          return AgentAuthCli.EXIT_OK;
        }
      }
      if (page.hasMore()) {
        pageCursor = page.nextCursor();
        printedOnPage.clear();
      } else {
        cli.pause().pause(pollInterval);
      }
    }
    return AgentAuthCli.EXIT_OK;
  }

  private void emit(AgentAuthClient client, ReceiptSummary s) throws InterruptedException {
    if (json) {
      String receipt = null;
      while (receipt == null) {
        try {
          receipt = retrying(() -> client.receipts().awaitSignedJson(s.receiptId(), waitTimeout));
        } catch (ReceiptWaitTimeoutException e) {
          cli.err()
              .println(
                  AgentAuthCli.PROGRAM
                      + ": receipt "
                      + s.receiptId()
                      + " still pending after "
                      + waitTimeout.toSeconds()
                      + "s; still waiting");
        }
      }
      cli.out().println(receipt);
    } else {
      cli.out()
          .println(
              s.receiptId()
                  + "  "
                  + s.createdAt()
                  + "  "
                  + s.decision()
                  + "  "
                  + (s.scope() != null ? s.scope() : s.event())
                  + "  "
                  + cell(s.authorizationId()));
    }
    cli.out().flush();
  }

  /**
   * Calls {@code call} until it answers: while the service cannot be reached (or answers 5xx), says
   * so once on standard error and retries with a doubling pause up to {@link #MAX_BACKOFF}.
   */
  private <T> T retrying(Supplier<T> call) throws InterruptedException {
    while (true) {
      try {
        T value = call.get();
        if (down) {
          cli.err().println(AgentAuthCli.PROGRAM + ": reconnected; resuming");
          down = false;
        }
        backoff = FIRST_BACKOFF;
        return value;
      } catch (ConnectionException | ServerException e) {
        if (!down) {
          cli.err()
              .println(
                  AgentAuthCli.PROGRAM
                      + ": connection lost ("
                      + e.getMessage()
                      + "); retrying, resuming where it stopped");
          down = true;
        }
        cli.pause().pause(backoff);
        backoff = backoff.multipliedBy(2);
        if (backoff.compareTo(MAX_BACKOFF) > 0) {
          backoff = MAX_BACKOFF;
        }
      }
    }
  }
}
