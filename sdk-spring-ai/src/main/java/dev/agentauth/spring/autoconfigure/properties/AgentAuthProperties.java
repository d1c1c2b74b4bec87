package dev.agentauth.spring.autoconfigure.properties;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the agentauth starter, under {@code agentauth.*}. Every property is listed, with
 * its default, in docs/spring-ai.md; the IDE completes them from the generated metadata.
 *
 * <pre>{@code
 * agentauth:
 *   base-url: https://agentauth.internal
 *   api-key: ${AGENTAUTH_API_KEY}
 *   fallback:
 *     mode: fail-closed
 *     scopes:
 *       kb.search: fail-open
 *   mcp:
 *     agent-id: support-bot
 *     tool-scopes:
 *       send_email: email.send
 *     hide-unauthorized-tools: true
 *     elicitation:
 *       timeout: 2m
 *   tools:
 *     delete_note:
 *       resource: "notes:{id}"
 * }</pre>
 */
@ConfigurationProperties(AgentAuthProperties.PREFIX)
public class AgentAuthProperties {

  /** The prefix of every property of the starter: {@value}. */
  public static final String PREFIX = "agentauth";

  /** The prefix of the properties of the MCP server's guard ({@link Mcp}): {@value}. */
  public static final String MCP_PREFIX = PREFIX + ".mcp";

  /**
   * Base URL of the agentauth service, e.g. {@code https://agentauth.internal}. Plain {@code
   * http://} only on a loopback host unless {@code allow-insecure-http} is set.
   */
  private String baseUrl;

  /** API key sent as a Bearer token on every request. Never logged. */
  private String apiKey;

  /** TCP connect timeout of every request. */
  private Duration connectTimeout = Duration.ofSeconds(5);

  /** Overall timeout of every request other than a check, retries included. */
  private Duration requestTimeout = Duration.ofSeconds(30);

  /** Overall timeout of a check, retries included; then the fallback policy decides. */
  private Duration checkTimeout = Duration.ofSeconds(2);

  /** How many times an idempotent request is retried after a connection failure, 429 or 5xx. */
  private int maxRetries = 2;

  /**
   * Allow a plain {@code http://} base URL on a non-loopback host (the API key then travels
   * unencrypted).
   */
  private boolean allowInsecureHttp;

  /** What a check yields when the service cannot answer. */
  private final Fallback fallback = new Fallback();

  /** Guarding of the tools of a Spring AI MCP server. */
  private final Mcp mcp = new Mcp();

  /** Guarding of the tools a ChatClient calls in-process. */
  private final Chat chat = new Chat();

  /**
   * Per-tool settings, by tool name, for the MCP server's tools and a ChatClient's alike: what
   * resource each check of the tool carries, and so what one approval covers.
   */
  private Map<String, ToolProperties> tools = new LinkedHashMap<>();

  public String getBaseUrl() {
    return baseUrl;
  }

  public void setBaseUrl(String baseUrl) {
    this.baseUrl = baseUrl;
  }

  public String getApiKey() {
    return apiKey;
  }

  public void setApiKey(String apiKey) {
    this.apiKey = apiKey;
  }

  public Duration getConnectTimeout() {
    return connectTimeout;
  }

  public void setConnectTimeout(Duration connectTimeout) {
    this.connectTimeout = connectTimeout;
  }

  public Duration getRequestTimeout() {
    return requestTimeout;
  }

  public void setRequestTimeout(Duration requestTimeout) {
    this.requestTimeout = requestTimeout;
  }

  public Duration getCheckTimeout() {
    return checkTimeout;
  }

  public void setCheckTimeout(Duration checkTimeout) {
    this.checkTimeout = checkTimeout;
  }

  public int getMaxRetries() {
    return maxRetries;
  }

  public void setMaxRetries(int maxRetries) {
    this.maxRetries = maxRetries;
  }

  public boolean isAllowInsecureHttp() {
    return allowInsecureHttp;
  }

  public void setAllowInsecureHttp(boolean allowInsecureHttp) {
    this.allowInsecureHttp = allowInsecureHttp;
  }

  public Fallback getFallback() {
    return fallback;
  }

  public Mcp getMcp() {
    return mcp;
  }

  public Chat getChat() {
    return chat;
  }

  public Map<String, ToolProperties> getTools() {
    return tools;
  }

  public void setTools(Map<String, ToolProperties> tools) {
    this.tools = tools;
  }

  @Override
  public String toString() {
    // The API key is a secret: never part of any rendering of the configuration.
    return "AgentAuthProperties{baseUrl="
        + baseUrl
        + ", apiKey="
        + (apiKey == null ? "unset" : "set")
        + "}";
  }

  /** A fallback mode, as configured. */
  public enum FallbackMode {
    /** The call is refused ({@code deny}, reason {@code fallback_closed_*}). */
    FAIL_CLOSED,
    /** The call runs ({@code allow}, reason {@code fallback_open_*}). */
    FAIL_OPEN,
    /** No fallback: the check throws and the tool call fails with an error. */
    DISABLED
  }

  /** {@code agentauth.fallback.*}. */
  public static class Fallback {

    /** Default mode for every scope. */
    private FallbackMode mode = FallbackMode.FAIL_CLOSED;

    /**
     * Per-scope overrides of {@code mode}: {@code fail-closed} or {@code fail-open}. Never {@code
     * fail-open} for a scope whose resource or context comes from model-written arguments.
     */
    private Map<String, FallbackMode> scopes = new LinkedHashMap<>();

    public FallbackMode getMode() {
      return mode;
    }

    public void setMode(FallbackMode mode) {
      this.mode = mode;
    }

    public Map<String, FallbackMode> getScopes() {
      return scopes;
    }

    public void setScopes(Map<String, FallbackMode> scopes) {
      this.scopes = scopes;
    }
  }

  /** Where the caller's user id comes from. */
  public enum UserIdSourceKind {
    /**
     * The authenticated principal's name (Spring Security, or any servlet authentication), put into
     * the MCP transport context by the starter's context extractor.
     */
    PRINCIPAL,
    /** A claim of the authenticated JWT (Spring Security OAuth2 resource server). */
    JWT_CLAIM,
    /**
     * The {@code user_id} tool argument. Written by the model, so caller-controlled: only where the
     * model's input is trusted as much as the user.
     */
    ARGUMENT
  }

  /** {@code agentauth.mcp.*}. */
  public static class Mcp {

    /** Guard the tools of the Spring AI MCP server. */
    private boolean enabled = true;

    /**
     * Hide, in tools/list, the tools the caller has no active authorization for (a convenience:
     * calls are checked either way).
     */
    private boolean hideUnauthorizedTools;

    /** How long a looked-up authorization decides visibility in tools/list. */
    private Duration visibilityCacheTtl = Duration.ofSeconds(10);

    /** Tool name to checked scope; a tool not listed is checked under its own name. */
    private Map<String, String> toolScopes = new LinkedHashMap<>();

    /** Prefix of the scope of a tool not in {@code tool-scopes}, e.g. {@code mcp.}. */
    private String scopePrefix = "";

    /**
     * The agent whose authorizations the active-grant resolver uses (their {@code agent_id}).
     * Unset: {@code spring.application.name}; neither set: startup fails.
     */
    private String agentId;

    /** How long the active-grant resolver keeps a user's authorizations. */
    private Duration resolverCacheTtl = Duration.ofSeconds(5);

    /** Where the caller's user id comes from. */
    private final UserId userId = new UserId();

    /** Asking the user in their MCP client when a call needs their confirmation. */
    private final Elicitation elicitation = new Elicitation();

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public boolean isHideUnauthorizedTools() {
      return hideUnauthorizedTools;
    }

    public void setHideUnauthorizedTools(boolean hideUnauthorizedTools) {
      this.hideUnauthorizedTools = hideUnauthorizedTools;
    }

    public Duration getVisibilityCacheTtl() {
      return visibilityCacheTtl;
    }

    public void setVisibilityCacheTtl(Duration visibilityCacheTtl) {
      this.visibilityCacheTtl = visibilityCacheTtl;
    }

    public Map<String, String> getToolScopes() {
      return toolScopes;
    }

    public void setToolScopes(Map<String, String> toolScopes) {
      this.toolScopes = toolScopes;
    }

    public String getScopePrefix() {
      return scopePrefix;
    }

    public void setScopePrefix(String scopePrefix) {
      this.scopePrefix = scopePrefix;
    }

    public String getAgentId() {
      return agentId;
    }

    public void setAgentId(String agentId) {
      this.agentId = agentId;
    }

    public Duration getResolverCacheTtl() {
      return resolverCacheTtl;
    }

    public void setResolverCacheTtl(Duration resolverCacheTtl) {
      this.resolverCacheTtl = resolverCacheTtl;
    }

    public UserId getUserId() {
      return userId;
    }

    public Elicitation getElicitation() {
      return elicitation;
    }
  }

  /** {@code agentauth.mcp.elicitation.*}. */
  public static class Elicitation {

    /**
     * Ask the user, in their MCP client (elicitation), to confirm a call that needs it, in the same
     * tools/call. Unset: on when the API key's role may answer confirmations (full, app,
     * tool_server), as looked up at startup; off when it may not or the lookup fails.
     */
    private Boolean enabled;

    /** How long the guard waits for the user's answer before returning the confirm result. */
    private Duration timeout = Duration.ofMinutes(2);

    public Boolean getEnabled() {
      return enabled;
    }

    public void setEnabled(Boolean enabled) {
      this.enabled = enabled;
    }

    public Duration getTimeout() {
      return timeout;
    }

    public void setTimeout(Duration timeout) {
      this.timeout = timeout;
    }
  }

  /** {@code agentauth.tools.<tool>.*}. */
  public static class ToolProperties {

    /**
     * Resource template of the tool's checks, e.g. {@code notes:{id}}: each {@code {name}} is
     * replaced by the top-level argument of that name. Unset: the tool's name, a colon and a digest
     * of the call's arguments, so an approval covers identical calls only.
     */
    private String resource;

    /**
     * Check the tool with no resource at all. Widens every approval: a confirmation or an
     * escalation approved for one call of the tool then also lets every other call of its scope run
     * while it lasts.
     */
    private boolean unbound;

    public String getResource() {
      return resource;
    }

    public void setResource(String resource) {
      this.resource = resource;
    }

    public boolean isUnbound() {
      return unbound;
    }

    public void setUnbound(boolean unbound) {
      this.unbound = unbound;
    }
  }

  /** {@code agentauth.mcp.user-id.*}. */
  public static class UserId {

    /** Where the user id comes from. */
    private UserIdSourceKind source = UserIdSourceKind.PRINCIPAL;

    /** The JWT claim read when {@code source} is {@code jwt-claim}. */
    private String claim = "sub";

    /** The tool argument read when {@code source} is {@code argument}. */
    private String argument = "user_id";

    public UserIdSourceKind getSource() {
      return source;
    }

    public void setSource(UserIdSourceKind source) {
      this.source = source;
    }

    public String getClaim() {
      return claim;
    }

    public void setClaim(String claim) {
      this.claim = claim;
    }

    public String getArgument() {
      return argument;
    }

    public void setArgument(String argument) {
      this.argument = argument;
    }
  }

  /** {@code agentauth.chat.*}. */
  public static class Chat {

    /** The ToolContext entry holding the user id of a ChatClient's tool call. */
    private String userIdKey = "user_id";

    public String getUserIdKey() {
      return userIdKey;
    }

    public void setUserIdKey(String userIdKey) {
      this.userIdKey = userIdKey;
    }
  }
}
