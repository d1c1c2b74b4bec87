package dev.agentauth.cli;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.ReceiptWaitTimeoutException;
import dev.agentauth.model.ReceiptSummary;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code agentauth receipts export}: every matching signed receipt as NDJSON, each line the receipt
 * object exactly as the service served it, so that {@code agentauth-verify} verifies it.
 */
@Command(
    name = "export",
    mixinStandardHelpOptions = true,
    description = {
      "Write every matching signed receipt as NDJSON, oldest first: one receipt per line, exactly"
          + " as the service served it, across every page. Receipts still being signed are waited"
          + " for, up to --wait-timeout in all; if some are still pending then, they are named and"
          + " the exit status is 1.",
      "Pipe it to the verifier: agentauth-verify verify --keys keys.json --chain -",
      "Progress (count, rate) goes to standard error when it is a terminal, never with --json."
    },
    footer = {
      "",
      "Examples:",
      "  agentauth receipts export --authorization auth_01HX... \\",
      "    | java -jar agentauth-verify.jar verify --keys keys.json --chain -",
      "  agentauth receipts export --from 2026-11-01T00:00:00Z \\",
      "    --to 2026-12-01T00:00:00Z -o november.ndjson"
    })
final class ExportCommand extends ApiCommand {
  /** How many pending receipts the failure message names. */
  static final int NAMED_PENDING = 10;

  @Mixin ReceiptFilters filters;

  @Option(
      names = "--wait-timeout",
      paramLabel = "DURATION",
      converter = Durations.class,
      defaultValue = "30s",
      description = "How long to wait in all for receipts still being signed (default 30s).")
  Duration waitTimeout;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FILE",
      description = "Write to FILE instead of standard output.")
  Path output;

  ExportCommand(Cli cli) {
    super(cli);
  }

  @Override
  int run(AgentAuthClient client) throws IOException {
    long deadline = System.nanoTime() + waitTimeout.toNanos();
    List<String> pending = new ArrayList<>();
    Progress progress = new Progress(cli, cli.stderrIsTerminal() && !json);
    long count = 0;
    Writer out =
        output == null
            ? cli.out()
            : new PrintWriter(
                new BufferedWriter(
                    new OutputStreamWriter(Files.newOutputStream(output), StandardCharsets.UTF_8),
                    1 << 16));
    try {
      for (ReceiptSummary s : client.receipts().listAutoPaging(filters.params(100))) {
        String receipt;
        try {
          receipt = client.receipts().awaitSignedJson(s.receiptId(), remaining(deadline));
        } catch (ReceiptWaitTimeoutException e) {
          pending.add(s.receiptId());
          continue;
        }
        out.write(receipt);
        out.write('\n');
        count++;
        progress.tick(count);
      }
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the export: " + e.getMessage(), e);
    } finally {
      progress.done(count);
      if (output != null) {
        out.close();
      }
    }
    if (cli.out().checkError()) {
      throw CliException.failure("cannot write the export to standard output");
    }
    if (!pending.isEmpty()) {
      throw CliException.failure(
          pending.size()
              + " receipt(s) still pending after "
              + waitTimeout.toSeconds()
              + "s and not exported: "
              + String.join(", ", pending.subList(0, Math.min(NAMED_PENDING, pending.size())))
              + (pending.size() > NAMED_PENDING ? ", ..." : "")
              + "; run again later or raise --wait-timeout");
    }
    return AgentAuthCli.EXIT_OK;
  }

  /** What is left until {@code deadline}; at least 1 ms, so that a late receipt gets one poll. */
  static Duration remaining(long deadline) {
    long left = deadline - System.nanoTime();
    return Duration.ofNanos(Math.max(left, Duration.ofMillis(1).toNanos()));
  }

  /** Count and rate on standard error, at most twice a second, when it is a terminal. */
  static final class Progress {
    private final Cli cli;
    private final boolean enabled;
    private final long start = System.nanoTime();
    private long shownAt;

    Progress(Cli cli, boolean enabled) {
      this.cli = cli;
      this.enabled = enabled;
      this.shownAt = start;
    }

    void tick(long count) {
      if (!enabled) {
        return;
      }
      long now = System.nanoTime();
      if (now - shownAt >= 500_000_000L) {
        shownAt = now;
        cli.err().print("\rexported " + count + " receipts (" + rate(count, now) + "/s)");
        cli.err().flush();
      }
    }

    void done(long count) {
      if (enabled) {
        cli.err()
            .println(
                "\rexported " + count + " receipts (" + rate(count, System.nanoTime()) + "/s)");
      }
    }

    private long rate(long count, long now) {
      double seconds = Math.max((now - start) / 1e9, 1e-3);
      return Math.round(count / seconds);
    }
  }
}
