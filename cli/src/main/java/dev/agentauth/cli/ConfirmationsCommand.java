package dev.agentauth.cli;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.model.ConfirmationResolution;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code agentauth confirmations}: the end user's answer to a {@code confirm} decision. */
@Command(
    name = "confirmations",
    mixinStandardHelpOptions = true,
    description =
        "Approve or decline a confirmation nonce (POST /v1/confirmations/{nonce}). Only on the"
            + " end user's explicit answer, never automatically.",
    footer = {"", "Example:", "  agentauth confirmations approve cn_abc123"},
    subcommands = {ConfirmationsCommand.Approve.class, ConfirmationsCommand.Decline.class})
final class ConfirmationsCommand {

  @Command(
      name = "approve",
      mixinStandardHelpOptions = true,
      description =
          "Approve: re-checks of the same scope and resource are allowed for --ttl (default 60s,"
              + " at most 300s).",
      footer = {"", "Example:", "  agentauth confirmations approve cn_abc123 --ttl 120s"})
  static final class Approve extends ApiCommand {
    @Parameters(paramLabel = "NONCE", description = "The confirm_nonce of the check result.")
    String nonce;

    @Option(
        names = "--ttl",
        paramLabel = "DURATION",
        converter = Durations.class,
        description = "How long the approval lasts (default 60s, at most 300s).")
    Duration ttl;

    Approve(Cli cli) {
      super(cli);
    }

    @Override
    int run(AgentAuthClient client) {
      ConfirmationResolution r =
          ttl == null
              ? client.confirmations().approve(nonce)
              : client.confirmations().approve(nonce, ttl);
      return ConfirmationsCommand.print(this, r);
    }
  }

  @Command(
      name = "decline",
      mixinStandardHelpOptions = true,
      description = "Decline: the nonce is used up; the next check asks again.",
      footer = {"", "Example:", "  agentauth confirmations decline cn_abc123"})
  static final class Decline extends ApiCommand {
    @Parameters(paramLabel = "NONCE", description = "The confirm_nonce of the check result.")
    String nonce;

    Decline(Cli cli) {
      super(cli);
    }

    @Override
    int run(AgentAuthClient client) {
      return ConfirmationsCommand.print(this, client.confirmations().decline(nonce));
    }
  }

  static int print(ApiCommand c, ConfirmationResolution r) {
    if (c.json) {
      c.printJson(r);
    } else {
      c.cli
          .out()
          .println(
              "Confirmation "
                  + r.decision()
                  + (r.expiresAt() == null ? "" : "; re-check before " + r.expiresAt()));
    }
    return AgentAuthCli.EXIT_OK;
  }
}
