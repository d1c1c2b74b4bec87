package dev.agentauth.verifier.cli;

import dev.agentauth.verifier.log.CosignatureSigner;
import dev.agentauth.verifier.log.LogVerificationException;
import dev.agentauth.verifier.log.SignedNote;
import dev.agentauth.verifier.log.VerifiedCheckpoint;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code agentauth-verify log}: audit a workspace's receipt log ({@code audit}), cosign its
 * checkpoints as a witness ({@code witness}), make a witness key ({@code witness-keygen}).
 */
@Command(
    name = "log",
    mixinStandardHelpOptions = true,
    versionProvider = VerifyCli.Version.class,
    description = "Commands about a workspace's receipt log.")
final class LogCommand implements Callable<Integer> {

  private final PrintWriter err;

  LogCommand(PrintWriter err) {
    this.err = err;
  }

  @Override
  public Integer call() {
    err.println(
        VerifyCli.PROGRAM
            + ": missing command: use '"
            + VerifyCli.PROGRAM
            + " log audit', 'log witness' or 'log witness-keygen'");
    err.println("Run '" + VerifyCli.PROGRAM + " log --help' for usage.");
    return VerifyCli.EXIT_USAGE;
  }

  /** What the audit and witness commands need from the CLI. */
  record Io(
      InputStream stdin,
      PrintWriter out,
      PrintWriter err,
      Clock clock,
      KeysFetcher fetcher,
      Function<String, String> env) {

    /** Runs {@code body}, mapping failures to exit codes and one-line messages. */
    int run(Body body) {
      try {
        body.run();
        out.println("RESULT VALID");
        return VerifyCli.EXIT_VALID;
      } catch (LogVerificationException e) {
        out.println("RESULT INVALID: " + Reports.safe(e.getMessage()));
        return VerifyCli.EXIT_INVALID;
      } catch (InputException e) {
        err.println(VerifyCli.PROGRAM + ": " + Reports.safe(e.getMessage()));
        return VerifyCli.EXIT_USAGE;
      }
    }
  }

  /** A command body. */
  interface Body {
    void run() throws InputException;
  }

  static final String EXIT_1 =
      "1:verification failed: a checkpoint signature, a cosignature quorum, or the log forked or"
          + " shrank";
  static final String EXIT_2 =
      "2:usage or input error (unreadable file, bad keys document, server unreachable or not"
          + " 200, API key needed and missing)";

  /** {@code log audit}. */
  @Command(
      name = "audit",
      mixinStandardHelpOptions = true,
      versionProvider = VerifyCli.Version.class,
      sortOptions = false,
      usageHelpAutoWidth = true,
      description = {
        "Fetches the newest checkpoint of a workspace's receipt log, verifies its signature"
            + " against the keys document (and its witness quorum), checks that it extends the"
            + " checkpoint stored in the state file, then stores it there.",
        "The first run, with no state file, trusts the checkpoint on first use and says so.",
        "When the log grew, the consistency proof needs an API key (AGENTAUTH_API_KEY or"
            + " --api-key-file); without one only an unchanged log can be confirmed.",
      },
      exitCodeListHeading = "%nExit codes:%n",
      exitCodeList = {"0:the log extends the stored checkpoint (or first use)", EXIT_1, EXIT_2})
  static final class Audit implements Callable<Integer> {
    @Option(
        names = "--state",
        paramLabel = "FILE",
        required = true,
        description = "The last checkpoint this auditor accepted; created on the first run.")
    Path state;

    @Mixin LogOptions options;

    private final Io io;

    Audit(Io io) {
      this.io = io;
    }

    @Override
    public Integer call() {
      return io.run(
          () -> {
            LogOptions.Context context =
                options.open(io.stdin(), io.clock(), io.fetcher(), io.env());
            String note = context.client().checkpoint(context.quorum());
            VerifiedCheckpoint current = context.verify(note, "the newest checkpoint");
            io.out()
                .println(
                    "CHECKPOINT "
                        + current.checkpoint().origin()
                        + " size "
                        + current.checkpoint().treeSize()
                        + " root "
                        + current.checkpoint().rootBase64()
                        + " signature valid"
                        + (current.witnesses().isEmpty()
                            ? ""
                            : ", cosigned by " + String.join(", ", current.witnesses())));
            LogFollower.follow(context, state, current, io.out());
            LogFollower.store(state, current);
          });
    }
  }

  /** {@code log witness}. */
  @Command(
      name = "witness",
      mixinStandardHelpOptions = true,
      versionProvider = VerifyCli.Version.class,
      sortOptions = false,
      usageHelpAutoWidth = true,
      description = {
        "As a witness: fetches the newest checkpoint, verifies it and checks that it extends the"
            + " one in the state file (like 'log audit'), then cosigns it (C2SP tlog-cosignature"
            + " v1) and posts the cosignature to the server, unless --print-only.",
        "A witness never cosigns a checkpoint it could not prove consistent with the last one it"
            + " cosigned: when the log grew, it needs an API key.",
      },
      exitCodeListHeading = "%nExit codes:%n",
      exitCodeList = {"0:cosigned (and posted)", EXIT_1, EXIT_2})
  static final class Witness implements Callable<Integer> {
    @Option(
        names = "--key",
        paramLabel = "FILE",
        required = true,
        description = "The witness's private key file (from 'log witness-keygen'; mode 600).")
    Path key;

    @Option(
        names = "--state",
        paramLabel = "FILE",
        required = true,
        description = "The last checkpoint this witness cosigned; created on the first run.")
    Path state;

    @Option(
        names = "--print-only",
        description = "Print the cosignature line instead of posting it.")
    boolean printOnly;

    @Mixin LogOptions options;

    private final Io io;

    Witness(Io io) {
      this.io = io;
    }

    @Override
    public Integer call() {
      return io.run(
          () -> {
            CosignatureSigner signer;
            try {
              signer = CosignatureSigner.fromSkey(SecretFiles.readPrivate(key, "witness key file"));
            } catch (LogVerificationException e) {
              throw new InputException("witness key file " + key + ": " + e.getMessage());
            }
            LogOptions.Context context =
                options.open(io.stdin(), io.clock(), io.fetcher(), io.env());
            VerifiedCheckpoint current =
                context.verify(context.client().checkpoint(0), "the newest checkpoint");
            LogFollower.follow(context, state, current, io.out());
            LogFollower.store(state, current);
            String line =
                signer.cosign(current.checkpoint(), io.clock().instant().getEpochSecond());
            if (printOnly) {
              io.out().print(line);
              return;
            }
            List<SignedNote.Signature> logSignatures = new ArrayList<>();
            for (SignedNote.Signature s : current.note().signatures()) {
              if (s.keyName().equals(current.checkpoint().origin())) {
                logSignatures.add(s);
              }
            }
            String body = new SignedNote(current.note().text(), logSignatures).format() + line;
            int accepted = context.client().postCosignatures(body);
            io.out()
                .println(
                    "COSIGNED size "
                        + current.checkpoint().treeSize()
                        + " as "
                        + signer.witnessKey().name()
                        + "; the server accepted "
                        + accepted);
          });
    }
  }

  /** {@code log witness-keygen}. */
  @Command(
      name = "witness-keygen",
      mixinStandardHelpOptions = true,
      versionProvider = VerifyCli.Version.class,
      sortOptions = false,
      usageHelpAutoWidth = true,
      description = {
        "Makes a witness key: writes the private key to --out (mode 600, never overwritten) and"
            + " prints the public key (vkey) to give to the log's operator and to auditors.",
      },
      exitCodeListHeading = "%nExit codes:%n",
      exitCodeList = {"0:key written", "2:usage or input error (file exists, bad name)"})
  static final class Keygen implements Callable<Integer> {
    @Option(
        names = "--name",
        paramLabel = "NAME",
        required = true,
        description = "The witness's name, such as witness.example.com/agentauth (no spaces or +).")
    String name;

    @Option(
        names = "--out",
        paramLabel = "FILE",
        required = true,
        description = "Where to write the private key.")
    Path outFile;

    private final Io io;

    Keygen(Io io) {
      this.io = io;
    }

    @Override
    public Integer call() {
      CosignatureSigner signer;
      try {
        signer = CosignatureSigner.generate(name, new SecureRandom());
        SecretFiles.createNew(outFile, signer.skey() + "\n", "witness key file");
      } catch (LogVerificationException e) {
        io.err().println(VerifyCli.PROGRAM + ": --name: " + Reports.safe(e.getMessage()));
        return VerifyCli.EXIT_USAGE;
      } catch (InputException e) {
        io.err().println(VerifyCli.PROGRAM + ": " + Reports.safe(e.getMessage()));
        return VerifyCli.EXIT_USAGE;
      }
      io.out().println(signer.witnessKey().vkey());
      return VerifyCli.EXIT_VALID;
    }
  }
}
