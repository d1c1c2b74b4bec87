package dev.agentauth.examples;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AgentAuthException;
import dev.agentauth.client.ApiKeyCreateParams;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.mcp.AgentAuthToolGuard;
import dev.agentauth.mcp.GuardDecision;
import dev.agentauth.mcp.ToolCall;
import dev.agentauth.mcp.UserIdSource;
import dev.agentauth.model.ApiKey;
import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.model.ScopeConstraints;
import dev.agentauth.server.AgentAuthServer;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A small MCP tool server whose tools ({@code send_email}, {@code read_calendar}, {@code
 * delete_file}: fakes that only describe what they would do) are each guarded by {@link
 * AgentAuthToolGuard}: a tool runs only when agentauth answers {@code allow}; {@code deny}, {@code
 * confirm} and {@code escalate} come back as error results carrying the decision.
 *
 * <pre>
 * java -jar examples/target/agentauth-guarded-tools.jar                      # stdio, embedded server
 * java -jar examples/target/agentauth-guarded-tools.jar --transport http --port 8080
 * java -jar examples/target/agentauth-guarded-tools.jar --transport http --elicitation
 * java -jar examples/target/agentauth-guarded-tools.jar --agentauth-url https://agentauth.example.com \
 *     --api-key sk_... --grant user_8821=auth_01J...
 * </pre>
 *
 * <p><b>Transports and identity.</b> Over <b>stdio</b> (the default) the calling user is the tool
 * argument {@code user_id}. The model writes tool arguments, so that identity is
 * <em>caller-controlled</em>: acceptable for a local server that serves one user, never for a
 * shared one. Over <b>streamable HTTP</b> ({@code --transport http}, endpoint {@code /mcp}) the
 * user is the {@value #USER_HEADER} request header, put into the MCP transport context by the
 * transport and read with {@link UserIdSource#transportContext(String)}; a {@code user_id} argument
 * is ignored. This example trusts the header as it comes: a real deployment takes the user from its
 * authenticated session (a verified token, a session cookie) in the transport's context extractor,
 * never from a header any client can set.
 *
 * <p><b>The agentauth service.</b> {@code --agentauth-url} and {@code --api-key} (or the
 * environment variables {@code AGENTAUTH_URL} and {@code AGENTAUTH_API_KEY}) point at a running
 * service. Without them the server starts an embedded reference server and grants {@value
 * #DEMO_USER} a demo authorization: {@code send_email} (at most 3 a day), {@code read_calendar},
 * {@code delete_file} (needs the user's confirmation); its id, the embedded server's URL and API
 * key are printed to standard error.
 *
 * <p><b>Which authorization.</b> The guard's resolver maps the user id to an authorization id
 * through an in-memory map, filled by the demo setup and by {@code --grant USER=AUTHORIZATION_ID}
 * (repeatable). A user without an entry is denied locally ({@code authorization_not_found}).
 *
 * <p><b>What an approval covers.</b> Each check carries a resource naming the call: {@code
 * file:<path>} for {@code delete_file} (a template binding, the path percent-encoded), so that
 * approving the deletion of one file never deletes another; a digest of all the arguments for the
 * other tools (the guard's default), so that an approval covers identical calls only.
 *
 * <p><b>Asking the user in their client.</b> With {@code --elicitation}, a {@code confirm} decision
 * makes the guard ask the user in the same {@code tools/call} when their MCP client declared the
 * {@code elicitation} capability (both transports keep sessions): a form naming the tool and the
 * file, with one yes/no field. Yes approves the nonce and the tool runs; no or decline declines it
 * (a {@code deny}, {@code confirmation_declined}); cancel, no answer within 2 minutes or a client
 * without the capability gives the {@code confirm} result as without the option. Approving needs an
 * API key of role {@code tool_server}: the embedded server creates one for the guard; against a
 * service, pass such a key (the server warns at startup when the key's role cannot approve).
 *
 * <p>Over stdio nothing but MCP JSON-RPC is written to standard output: every log line goes to
 * standard error, and {@code System.out} is pointed at standard error for the process's lifetime so
 * that a stray print cannot corrupt the protocol stream.
 */
public final class GuardedToolServer implements AutoCloseable {

  /** The HTTP header naming the caller over streamable HTTP: {@value}. */
  public static final String USER_HEADER = "X-User-Id";

  /** The user of the demo authorization created with an embedded server: {@value}. */
  public static final String DEMO_USER = "demo_user";

  /** The agent the demo authorization is granted to: {@value}. */
  public static final String DEMO_AGENT = "mcp_demo_agent";

  /** The streamable-HTTP endpoint: {@value}. */
  public static final String MCP_ENDPOINT = "/mcp";

  private static final String CONTEXT_USER_KEY = "user_id";
  private static final String PREFIX = "[guarded-tools] ";

  static final String USAGE =
      String.join(
          System.lineSeparator(),
          "Usage: GuardedToolServer [--transport stdio|http] [--host HOST] [--port N]",
          "                         [--agentauth-url URL --api-key KEY] [--grant USER=AUTH_ID]...",
          "                         [--elicitation]",
          "",
          "An MCP tool server (send_email, read_calendar, delete_file) guarded by agentauth.",
          "  --transport stdio|http   stdio (default; caller = the model-supplied user_id argument)",
          "                           or streamable HTTP at /mcp (caller = the "
              + USER_HEADER
              + " header)",
          "  --host HOST, --port N    where the HTTP transport listens (127.0.0.1, 8080)",
          "  --agentauth-url URL      the agentauth service (or env AGENTAUTH_URL); without it an",
          "                           embedded reference server starts with a demo authorization",
          "                           for " + DEMO_USER,
          "  --api-key KEY            its API key (or env AGENTAUTH_API_KEY)",
          "  --grant USER=AUTH_ID     the authorization to check USER's calls against (repeatable)",
          "  --elicitation            ask the user to confirm in their MCP client (elicitation/create)",
          "                           when it declared the capability; needs a tool_server key",
          "                           (the embedded server creates one)",
          "Everything but MCP messages is written to standard error.");

  /** How MCP clients reach the server. */
  public enum Transport {
    /** Newline-delimited JSON-RPC on standard input and output. */
    STDIO,
    /** Streamable HTTP at {@value GuardedToolServer#MCP_ENDPOINT}. */
    HTTP
  }

  /**
   * The command-line options.
   *
   * @param transport stdio or streamable HTTP
   * @param host the HTTP listen address
   * @param port the HTTP port ({@code 0}: any free port)
   * @param agentAuthUrl the service's base URL, or null to start an embedded reference server
   * @param apiKey the service's API key; null exactly when {@code agentAuthUrl} is
   * @param grants user id → authorization id, in order
   * @param elicitation whether a {@code confirm} asks the user in their MCP client ({@code
   *     --elicitation})
   * @param help whether {@code --help} was given
   */
  public record Options(
      Transport transport,
      String host,
      int port,
      String agentAuthUrl,
      String apiKey,
      Map<String, String> grants,
      boolean elicitation,
      boolean help) {

    /** Copies {@code grants}. */
    public Options {
      Objects.requireNonNull(transport, "transport");
      Objects.requireNonNull(host, "host");
      grants = Collections.unmodifiableMap(new LinkedHashMap<>(grants));
    }

    /**
     * Parses the command line; {@code AGENTAUTH_URL} and {@code AGENTAUTH_API_KEY} of {@code env}
     * stand in for the missing options.
     *
     * @throws IllegalArgumentException with a one-line message when the command line is wrong
     */
    public static Options parse(List<String> args, Map<String, String> env) {
      Transport transport = Transport.STDIO;
      String host = "127.0.0.1";
      int port = 8080;
      String url = null;
      String key = null;
      Map<String, String> grants = new LinkedHashMap<>();
      boolean elicitation = false;
      boolean help = false;
      for (int i = 0; i < args.size(); i++) {
        String arg = args.get(i);
        String name = arg;
        String value = null;
        int eq = arg.indexOf('=');
        if (arg.startsWith("--") && eq > 0) {
          name = arg.substring(0, eq);
          value = arg.substring(eq + 1);
        }
        switch (name) {
          case "-h", "--help" -> help = true;
          case "--elicitation" -> {
            if (value != null) {
              throw new IllegalArgumentException(
                  "--elicitation takes no value, found '" + arg + "'");
            }
            elicitation = true;
          }
          case "--transport" -> {
            String t = value != null ? value : next(args, ++i, name);
            transport =
                switch (t.toLowerCase(Locale.ROOT)) {
                  case "stdio" -> Transport.STDIO;
                  case "http" -> Transport.HTTP;
                  default ->
                      throw new IllegalArgumentException(
                          "--transport must be stdio or http, found '" + t + "'");
                };
          }
          case "--host" -> host = value != null ? value : next(args, ++i, name);
          case "--port" -> {
            String p = value != null ? value : next(args, ++i, name);
            try {
              port = Integer.parseInt(p);
            } catch (NumberFormatException e) {
              port = -1;
            }
            if (port < 0 || port > 65535) {
              throw new IllegalArgumentException("--port must be 0-65535, found '" + p + "'");
            }
          }
          case "--agentauth-url" -> url = value != null ? value : next(args, ++i, name);
          case "--api-key" -> key = value != null ? value : next(args, ++i, name);
          case "--grant" -> {
            String g = value != null ? value : next(args, ++i, name);
            int sep = g.indexOf('=');
            if (sep <= 0 || sep == g.length() - 1) {
              throw new IllegalArgumentException(
                  "--grant takes USER=AUTHORIZATION_ID, found '" + g + "'");
            }
            grants.put(g.substring(0, sep), g.substring(sep + 1));
          }
          default -> throw new IllegalArgumentException("unknown option '" + arg + "'");
        }
      }
      if (url == null) {
        url = blankToNull(env.get("AGENTAUTH_URL"));
      }
      if (key == null) {
        key = blankToNull(env.get("AGENTAUTH_API_KEY"));
      }
      if (url != null && key == null) {
        throw new IllegalArgumentException(
            "--agentauth-url needs --api-key (or AGENTAUTH_API_KEY)");
      }
      if (url == null && key != null) {
        throw new IllegalArgumentException(
            "--api-key needs --agentauth-url (or AGENTAUTH_URL); without both an embedded"
                + " server starts");
      }
      return new Options(transport, host, port, url, key, grants, elicitation, help);
    }

    private static String next(List<String> args, int i, String option) {
      if (i >= args.size()) {
        throw new IllegalArgumentException(option + " needs a value");
      }
      return args.get(i);
    }

    private static String blankToNull(String s) {
      return s == null || s.isBlank() ? null : s;
    }
  }

  private final Options options;
  private final PrintStream log;
  private final Map<String, String> grants = new ConcurrentHashMap<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private AgentAuthServer embedded;
  private AgentAuthClient client;
  private String demoAuthorizationId;
  private McpSyncServer mcpServer;
  private Server jetty;
  private String mcpUrl;

  private GuardedToolServer(Options options, PrintStream log) {
    this.options = options;
    this.log = log;
  }

  /**
   * Runs the server until its MCP client goes away (stdio: standard input closes) or the process is
   * stopped (HTTP). Exit status 2 for a wrong command line.
   *
   * @param args see {@link Options#parse(List, Map)} and the class documentation
   */
  public static void main(String[] args) throws Exception {
    PrintStream stdout = System.out;
    PrintStream stderr = System.err;
    Options options;
    try {
      options = Options.parse(List.of(args), System.getenv());
    } catch (IllegalArgumentException e) {
      stderr.println("GuardedToolServer: " + e.getMessage());
      stderr.println(USAGE);
      System.exit(2);
      return;
    }
    if (options.help()) {
      stdout.println(USAGE);
      return;
    }
    // From here on standard output belongs to the MCP transport (stdio) or to nobody (HTTP).
    System.setOut(stderr);

    CountDownLatch inputClosed = new CountDownLatch(1);
    InputStream stdin = new EofSignallingInputStream(System.in, inputClosed);
    GuardedToolServer server = start(options, stdin, stdout, stderr);
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "guarded-tools-shutdown"));
    if (options.transport() == Transport.STDIO) {
      inputClosed.await();
      stderr.println(PREFIX + "standard input closed; stopping");
      server.close();
      System.exit(0);
    } else {
      server.jetty.join();
    }
  }

  /**
   * Starts the server: connects to the agentauth service (or starts the embedded one and creates
   * the demo authorization), wraps the tools with the guard, and starts the MCP transport.
   *
   * @param options the parsed command line
   * @param stdin where the stdio transport reads (unused over HTTP)
   * @param stdout where the stdio transport writes (unused over HTTP)
   * @param log where startup information and one line per guarded call go (standard error)
   */
  public static GuardedToolServer start(
      Options options, InputStream stdin, OutputStream stdout, PrintStream log) throws Exception {
    GuardedToolServer server = new GuardedToolServer(options, log);
    try {
      server.startAgentAuth();
      server.startMcp(stdin, stdout);
      return server;
    } catch (Exception | Error e) {
      server.close();
      throw e;
    }
  }

  private void startAgentAuth() {
    if (options.agentAuthUrl() != null) {
      client =
          AgentAuthClient.builder()
              .baseUrl(options.agentAuthUrl())
              .apiKey(options.apiKey())
              .build();
      log.println(PREFIX + "checking calls with the agentauth service at " + client.baseUrl());
      if (options.elicitation()) {
        checkRoleForElicitation(client);
      }
    } else {
      embedded = AgentAuthServer.builder().port(0).build().start();
      AgentAuthClient full =
          AgentAuthClient.builder().baseUrl(embedded.baseUrl()).apiKey(embedded.apiKey()).build();
      demoAuthorizationId = createDemoAuthorization(full);
      grants.put(DEMO_USER, demoAuthorizationId);
      // Approving a nonce with the user's answer needs a key that may: tool_server, the least.
      client = options.elicitation() ? toolServerClient(full) : full;
      log.println(
          PREFIX
              + "started an embedded agentauth reference server at "
              + embedded.baseUrl()
              + " (workspace "
              + embedded.workspaceId()
              + ", API key "
              + embedded.apiKey()
              + ")");
      log.println(
          PREFIX
              + "demo authorization "
              + demoAuthorizationId
              + " for "
              + DEMO_USER
              + ": send_email (max 3/day), read_calendar, delete_file (needs confirmation)");
      log.println(
          PREFIX
              + "to approve a confirmation as the user: curl -X POST -H 'Authorization: Bearer "
              + embedded.apiKey()
              + "' -H 'Content-Type: application/json' -d '{\"approved\":true}' "
              + embedded.baseUrl()
              + "/v1/confirmations/NONCE");
      if (options.elicitation()) {
        log.println(
            PREFIX
                + "elicitation on: a client that declared it is asked to confirm in the same call;"
                + " the guard approves with a tool_server key");
      }
    }
    options.grants().forEach(this::grant);
    if (grants.isEmpty()) {
      log.println(
          PREFIX + "no --grant given: every call will be denied locally (authorization_not_found)");
    }
  }

  /**
   * A client of the embedded server with a new {@code tool_server} key: everything an {@code agent}
   * key may call, plus approving and declining confirmation nonces with the user's answer.
   */
  private static AgentAuthClient toolServerClient(AgentAuthClient full) {
    ApiKey key =
        full.apiKeys()
            .create(ApiKeyCreateParams.of(ApiKeyRole.TOOL_SERVER).withName("guarded-tools"));
    return full.newBuilder().apiKey(key.apiKey()).build();
  }

  /**
   * Warns when the service's key cannot approve confirmations: the user's answer in their client
   * would then be refused (403) and every call falls back to the {@code confirm} result.
   */
  private void checkRoleForElicitation(AgentAuthClient service) {
    try {
      ApiKeyRole role = service.apiKeys().current().role();
      if (!role.equals(ApiKeyRole.TOOL_SERVER)
          && !role.equals(ApiKeyRole.APP)
          && !role.equals(ApiKeyRole.FULL)) {
        log.println(
            PREFIX
                + "warning: --elicitation with a key of role "
                + role.value()
                + ", which may not approve confirmations; use a tool_server key");
      }
    } catch (AgentAuthException e) {
      log.println(PREFIX + "could not read the API key's role: " + e.getMessage());
    }
  }

  /**
   * Creates the demo authorization: {@value #DEMO_USER} lets {@value #DEMO_AGENT} use {@code
   * send_email} (at most 3 a day), {@code read_calendar} and {@code delete_file} (each call needs
   * the user's confirmation) for 30 days.
   *
   * @return the authorization id
   */
  public static String createDemoAuthorization(AgentAuthClient client) {
    return client
        .authorizations()
        .create(
            AuthorizationCreateParams.inline()
                .userId(DEMO_USER)
                .agentId(DEMO_AGENT)
                .scope(DemoTools.SEND_EMAIL, ScopeConstraints.builder().maxPerDay(3).build())
                .scope(DemoTools.READ_CALENDAR)
                .scope(DemoTools.DELETE_FILE)
                .requiresConfirmFor(DemoTools.DELETE_FILE)
                .expiresAt(Instant.now().plus(Duration.ofDays(30)))
                .putMetadata("granted_via", "guarded-tool-server demo")
                .build())
        .authorizationId();
  }

  private void startMcp(InputStream stdin, OutputStream stdout) throws Exception {
    boolean stdio = options.transport() == Transport.STDIO;
    AgentAuthToolGuard guard =
        AgentAuthToolGuard.builder()
            .client(client)
            .userIdSource(
                stdio
                    // Caller-controlled: the model writes this argument.
                    ? UserIdSource.argument()
                    // Trusted: set by the transport from the request (see transport()).
                    : UserIdSource.transportContext(CONTEXT_USER_KEY))
            .authorizationResolver(
                (userId, toolName, arguments) -> Optional.ofNullable(grants.get(userId)))
            // What one approval covers: delete_file by its path; the others (no binding given)
            // by a digest of all their arguments, so an approval covers identical calls only.
            .resourceBinding(DemoTools.DELETE_FILE, DemoTools.DELETE_FILE_BINDING)
            .elicitation(options.elicitation())
            .contextExtractor(call -> Map.of("initiated_by", "agent"))
            .sessionIdExtractor(ToolCall::sessionId)
            .listener(this::logDecision)
            .build();
    List<SyncToolSpecification> tools = guard.wrapAllSync(DemoTools.all(stdio));
    String instructions =
        (stdio
                ? "Every tool call is checked with agentauth for the user named by the user_id"
                    + " argument; pass it on every call."
                : "Every tool call is checked with agentauth for the user of the HTTP session.")
            + " A refused call returns an error result whose JSON says why (deny), or asks"
            + " for the user's confirmation (confirm): ask the user, and call again once"
            + " they approved."
            + (options.elicitation()
                ? " When your client supports elicitation, the server asks the user itself and"
                    + " the call runs as soon as they approve."
                : "");
    if (stdio) {
      // Serialized: the SDK's stdio transport drops a response sent concurrently with another.
      McpServerTransportProvider transport =
          new SerializedSendTransportProvider(
              new StdioServerTransportProvider(McpJsonDefaults.getMapper(), stdin, stdout));
      mcpServer = build(McpServer.sync(transport), tools, instructions);
      log.println(PREFIX + "MCP server ready on stdio; the caller is the user_id argument");
    } else {
      HttpServletStreamableServerTransportProvider transport = httpTransport();
      mcpServer = build(McpServer.sync(transport), tools, instructions);
      // Jetty with the transport as an async servlet at /mcp, as in docs/mcp.md.
      jetty = MinimalGuardedServer.serve(transport, options.host(), options.port());
      ServerConnector connector = (ServerConnector) jetty.getConnectors()[0];
      String host = options.host().contains(":") ? "[" + options.host() + "]" : options.host();
      if (host.equals("0.0.0.0")) {
        host = "127.0.0.1";
      }
      mcpUrl = "http://" + host + ":" + connector.getLocalPort() + MCP_ENDPOINT;
      log.println(
          PREFIX
              + "MCP server ready at "
              + mcpUrl
              + " (streamable HTTP); the caller is the "
              + USER_HEADER
              + " header");
    }
  }

  private static McpSyncServer build(
      McpServer.SyncSpecification<?> spec, List<SyncToolSpecification> tools, String instructions) {
    return spec.serverInfo("agentauth-guarded-tools", "0.1.0")
        .instructions(instructions)
        .capabilities(ServerCapabilities.builder().tools(true).build())
        .tools(tools)
        .build();
  }

  /**
   * The streamable-HTTP transport. Its context extractor is where identity is established: this
   * example copies the {@value #USER_HEADER} header, which any client can set. A real deployment
   * authenticates the request here (a verified bearer token, a session cookie) and puts the
   * authenticated user's opaque id into the context instead.
   */
  private static HttpServletStreamableServerTransportProvider httpTransport() {
    return HttpServletStreamableServerTransportProvider.builder()
        .mcpEndpoint(MCP_ENDPOINT)
        .contextExtractor(
            request -> {
              String user = request.getHeader(USER_HEADER);
              return user == null || user.isBlank()
                  ? McpTransportContext.EMPTY
                  : McpTransportContext.create(Map.of(CONTEXT_USER_KEY, user.strip()));
            })
        .build();
  }

  private void logDecision(GuardDecision d) {
    StringBuilder line =
        new StringBuilder(PREFIX)
            .append(d.toolName())
            .append(" user=")
            .append(d.userId())
            .append(" -> ")
            .append(d.decision().value())
            .append(' ')
            .append(d.reason().value());
    if (d.receiptId() != null) {
      line.append(" receipt ").append(d.receiptId());
    }
    if (d.local()) {
      line.append(" (local)");
    }
    if (d.fallback()) {
      line.append(" (fallback)");
    }
    log.println(line);
  }

  /**
   * Lets {@code userId}'s calls be checked against {@code authorizationId} (replacing any earlier
   * grant of that user).
   */
  public void grant(String userId, String authorizationId) {
    grants.put(Objects.requireNonNull(userId, "userId"), authorizationId);
  }

  /** The HTTP endpoint, e.g. {@code http://127.0.0.1:8080/mcp}; null over stdio. */
  public String mcpUrl() {
    return mcpUrl;
  }

  /** The client the guard checks with. */
  public AgentAuthClient client() {
    return client;
  }

  /** The demo authorization's id when an embedded server was started, else null. */
  public String demoAuthorizationId() {
    return demoAuthorizationId;
  }

  /** The embedded reference server, or null when an external service is used. */
  public AgentAuthServer embeddedServer() {
    return embedded;
  }

  /** Stops the MCP transport and the embedded reference server, if any. Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    List<Exception> failures = new ArrayList<>();
    if (mcpServer != null) {
      try {
        mcpServer.closeGracefully();
      } catch (RuntimeException e) {
        failures.add(e);
      }
    }
    if (jetty != null) {
      try {
        jetty.stop();
      } catch (Exception e) {
        failures.add(e);
      }
    }
    if (embedded != null) {
      embedded.close();
    }
    for (Exception e : failures) {
      log.println(PREFIX + "while stopping: " + e);
    }
  }

  /** Counts down a latch when the stream ends or fails: the stdio client has gone away. */
  private static final class EofSignallingInputStream extends FilterInputStream {
    private final CountDownLatch closed;

    EofSignallingInputStream(InputStream in, CountDownLatch closed) {
      super(in);
      this.closed = closed;
    }

    @Override
    public int read() throws IOException {
      return signal(() -> super.read());
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      return signal(() -> super.read(b, off, len));
    }

    private int signal(IoRead read) throws IOException {
      try {
        int n = read.run();
        if (n < 0) {
          closed.countDown();
        }
        return n;
      } catch (IOException e) {
        closed.countDown();
        throw e;
      }
    }

    @FunctionalInterface
    private interface IoRead {
      int run() throws IOException;
    }
  }
}
