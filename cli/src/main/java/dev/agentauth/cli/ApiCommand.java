package dev.agentauth.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AgentAuthException;
import dev.agentauth.client.ApiException;
import dev.agentauth.client.AuthenticationException;
import dev.agentauth.client.BadRequestException;
import dev.agentauth.client.ConnectionException;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.model.FieldError;
import java.io.UncheckedIOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Option;

/**
 * A command that calls the service: resolves the connection ({@code --profile}), runs, and turns
 * every failure into one readable line and an exit status (never a stack trace).
 */
abstract class ApiCommand implements Callable<Integer> {
  static final ObjectMapper JSON = AgentAuthJson.newObjectMapper();

  @Option(
      names = "--profile",
      paramLabel = "NAME",
      description =
          "Profile saved by 'agentauth login' (default: $AGENTAUTH_PROFILE, else"
              + " $AGENTAUTH_BASE_URL/$AGENTAUTH_API_KEY, else 'default').")
  String profile;

  @Option(names = "--json", description = "Print JSON for programs instead of a table.")
  boolean json;

  final Cli cli;

  ApiCommand(Cli cli) {
    this.cli = cli;
  }

  /** Runs the command with a client; returns the exit status. */
  abstract int run(AgentAuthClient client) throws Exception;

  /** The connection to use; {@code login} overrides it with the one it is about to save. */
  Cli.Connection connection() {
    return cli.connection(profile);
  }

  /** Validates local input before any connection is made (files, option combinations). */
  void validate() {}

  @Override
  public final Integer call() {
    AgentAuthClient client = null;
    Cli.Connection connection = null;
    try {
      validate();
      connection = connection();
      client = Cli.client(connection);
      return run(client);
    } catch (CliException e) {
      return report(e.getMessage(), e.exitCode());
    } catch (AgentAuthException e) {
      return report(describe(e, connection), exitCode(e));
    } catch (IllegalArgumentException e) {
      return report(e.getMessage(), AgentAuthCli.EXIT_USAGE);
    } catch (UncheckedIOException e) {
      return report(e.getMessage(), AgentAuthCli.EXIT_FAILURE);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return report("interrupted", AgentAuthCli.EXIT_FAILURE);
    } catch (Exception e) {
      return report("failed: " + e, AgentAuthCli.EXIT_FAILURE);
    } finally {
      cli.out().flush();
      if (client != null) {
        Cli.close(client);
      }
    }
  }

  int report(String message, int status) {
    cli.out().flush();
    cli.err().println(AgentAuthCli.PROGRAM + ": " + message);
    return status;
  }

  /** 400 from the service is bad input (2); every other failure is 1. */
  static int exitCode(AgentAuthException e) {
    return e instanceof BadRequestException ? AgentAuthCli.EXIT_USAGE : AgentAuthCli.EXIT_FAILURE;
  }

  /** One readable message for a failed call, with what to do where we know it. */
  static String describe(AgentAuthException e, Cli.Connection connection) {
    String where = connection == null ? "the service" : connection.baseUrl();
    if (e instanceof ConnectionException) {
      return "cannot reach " + where + ": " + e.getMessage();
    }
    StringBuilder m = new StringBuilder();
    if (e instanceof ApiException api) {
      int status = api.statusCode();
      if (e instanceof AuthenticationException) {
        m.append("the API key was not accepted (revoked, expired or unknown) by ").append(where);
      } else if (status >= 300 && status < 400) {
        m.append(where)
            .append(" answered a redirect (")
            .append(status)
            .append(
                "); agentauth never follows one with an API key: use the final URL as the base"
                    + " URL");
      } else {
        m.append(status);
        if (api.code() != null) {
          m.append(' ').append(api.code());
        }
        String detail = api.detail() != null ? api.detail() : api.title();
        m.append(": ").append(detail != null ? detail : e.getMessage());
      }
      for (FieldError f : api.fieldErrors()) {
        m.append(System.lineSeparator())
            .append("  ")
            .append(f.field())
            .append(": ")
            .append(f.message());
      }
      if (e.requestId() != null) {
        m.append(System.lineSeparator()).append("  (request id ").append(e.requestId()).append(')');
      }
      return m.toString();
    }
    return e.getMessage();
  }

  /** Prints {@code value} as one line of JSON. */
  void printJson(Object value) {
    try {
      cli.out().println(JSON.writeValueAsString(value));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON: " + e.getMessage(), e);
    }
  }

  /** Formats a possibly null value for a table cell. */
  static String cell(Object value) {
    if (value == null) {
      return "-";
    }
    return value.toString();
  }
}
