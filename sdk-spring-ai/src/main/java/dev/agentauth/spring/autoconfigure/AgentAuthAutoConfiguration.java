package dev.agentauth.spring.autoconfigure;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AgentAuthException;
import dev.agentauth.client.FallbackPolicy;
import dev.agentauth.client.RequestOptions;
import dev.agentauth.mcp.AgentAuthToolGuard;
import dev.agentauth.mcp.AsyncAuthorizationResolver;
import dev.agentauth.mcp.AuthorizationResolver;
import dev.agentauth.mcp.DecisionListener;
import dev.agentauth.mcp.UserIdSource;
import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.spring.ActiveGrantResolver;
import dev.agentauth.spring.AgentAuthToolCallbacks;
import dev.agentauth.spring.AuthenticatedUserExtractor;
import dev.agentauth.spring.MicrometerDecisionListener;
import dev.agentauth.spring.ToolScopes;
import dev.agentauth.spring.autoconfigure.properties.AgentAuthProperties;
import dev.agentauth.spring.autoconfigure.properties.AgentAuthProperties.FallbackMode;
import io.micrometer.core.instrument.MeterRegistry;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.mcp.server.common.autoconfigure.McpServerAutoConfiguration;
import org.springframework.ai.mcp.server.common.autoconfigure.McpServerStatelessAutoConfiguration;
import org.springframework.ai.mcp.server.common.autoconfigure.McpServerStdioDisabledCondition;
import org.springframework.ai.mcp.server.common.autoconfigure.properties.McpServerStreamableHttpProperties;
import org.springframework.ai.mcp.server.webmvc.transport.WebMvcStatelessServerTransport;
import org.springframework.ai.mcp.server.webmvc.transport.WebMvcStreamableServerTransportProvider;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.env.Environment;
import tools.jackson.databind.json.JsonMapper;

/**
 * The agentauth starter's auto-configuration: an {@link AgentAuthClient} from {@code agentauth.*},
 * and, in a Spring AI MCP server, a guard around every tool before the server is built (ordered
 * before Spring AI's MCP server auto-configurations). Every bean backs off when the application
 * defines its own of the same type: the client, the {@link AuthorizationResolver} (or {@link
 * AsyncAuthorizationResolver}), the {@link UserIdSource}, the {@link ToolScopes}, the guard, the
 * transport context extractor, and {@link DecisionListener}s (all of which are told of every
 * decision).
 */
@AutoConfiguration(
    beforeName = {
      "org.springframework.ai.mcp.server.common.autoconfigure.McpServerAutoConfiguration",
      "org.springframework.ai.mcp.server.common.autoconfigure.McpServerStatelessAutoConfiguration",
      "org.springframework.ai.mcp.server.webmvc.autoconfigure.McpServerStreamableHttpWebMvcAutoConfiguration",
      "org.springframework.ai.mcp.server.webmvc.autoconfigure.McpServerStatelessWebMvcAutoConfiguration"
    })
@EnableConfigurationProperties(AgentAuthProperties.class)
public class AgentAuthAutoConfiguration {

  private static final Logger log = LoggerFactory.getLogger(AgentAuthAutoConfiguration.class);

  /** The client every part of the starter uses. */
  @Bean
  @ConditionalOnMissingBean
  public AgentAuthClient agentAuthClient(AgentAuthProperties properties) {
    if (properties.getBaseUrl() == null || properties.getBaseUrl().isBlank()) {
      throw new AgentAuthConfigurationException(
          "agentauth.base-url is not set: the starter's client needs the agentauth service's URL.",
          "Set agentauth.base-url (and agentauth.api-key), or define an AgentAuthClient bean.");
    }
    if (properties.getApiKey() == null || properties.getApiKey().isBlank()) {
      throw new AgentAuthConfigurationException(
          "agentauth.api-key is not set: the starter's client needs an API key.",
          "Set it (e.g. agentauth.api-key=${AGENTAUTH_API_KEY}), or define an AgentAuthClient"
              + " bean.");
    }
    requireResolved("agentauth.base-url", properties.getBaseUrl(), false);
    requireResolved("agentauth.api-key", properties.getApiKey(), true);
    AgentAuthClient.Builder builder = AgentAuthClient.builder();
    try {
      builder.baseUrl(properties.getBaseUrl());
    } catch (IllegalArgumentException e) {
      throw new AgentAuthConfigurationException(
          "agentauth.base-url: " + e.getMessage() + ".",
          "Set agentauth.base-url to the agentauth service's URL, such as"
              + " https://agentauth.example.com.");
    }
    try {
      builder.apiKey(properties.getApiKey());
    } catch (IllegalArgumentException e) {
      // The message names an index, never the key.
      throw new AgentAuthConfigurationException(
          "agentauth.api-key: " + e.getMessage() + ".",
          "Set agentauth.api-key to the key the service created (sk_...), without quotes or"
              + " spaces.");
    }
    return builder
        .connectTimeout(properties.getConnectTimeout())
        .requestTimeout(properties.getRequestTimeout())
        .checkTimeout(properties.getCheckTimeout())
        .maxRetries(properties.getMaxRetries())
        .allowInsecureHttp(properties.isAllowInsecureHttp())
        .fallback(fallbackPolicy(properties.getFallback()))
        .build();
  }

  /**
   * A value that is still a {@code ${...}} placeholder: Spring Boot binds an unresolvable one as
   * written, so a missing environment variable would reach the client as the key or URL itself.
   */
  private static void requireResolved(String property, String value, boolean secret) {
    int start = value.indexOf("${");
    int end = start < 0 ? -1 : value.indexOf('}', start);
    if (start < 0 || end < 0) {
      return;
    }
    String placeholder = value.substring(start + 2, end);
    int colon = placeholder.indexOf(':');
    String name = colon < 0 ? placeholder : placeholder.substring(0, colon);
    throw new AgentAuthConfigurationException(
        property
            + " is the unresolved placeholder ${"
            + name
            + "}: neither an environment variable nor a property named "
            + name
            + " is set.",
        "Set the environment variable "
            + name
            + (secret ? " (from your secret store)" : "")
            + " before starting the application, or give "
            + property
            + " a value.");
  }

  static FallbackPolicy fallbackPolicy(AgentAuthProperties.Fallback fallback) {
    FallbackPolicy policy =
        switch (fallback.getMode()) {
          case FAIL_CLOSED -> FallbackPolicy.failClosed();
          case FAIL_OPEN -> FallbackPolicy.failOpen();
          case DISABLED -> FallbackPolicy.disabled();
        };
    for (Map.Entry<String, FallbackMode> e : fallback.getScopes().entrySet()) {
      policy =
          switch (e.getValue()) {
            case FAIL_CLOSED -> policy.withFailClosed(e.getKey());
            case FAIL_OPEN -> policy.withFailOpen(e.getKey());
            case DISABLED ->
                throw new AgentAuthConfigurationException(
                    "agentauth.fallback.scopes."
                        + e.getKey()
                        + ": expected fail-closed or fail-open, found disabled.",
                    "Use fail-closed or fail-open per scope; disabled applies to every scope at"
                        + " once: agentauth.fallback.mode=disabled.");
          };
    }
    return policy;
  }

  /** How tool names become scopes. */
  @Bean
  @ConditionalOnMissingBean
  public ToolScopes agentAuthToolScopes(AgentAuthProperties properties) {
    return new ToolScopes(
        properties.getMcp().getToolScopes(), properties.getMcp().getScopePrefix());
  }

  /**
   * What resource each tool's checks carry, from {@code agentauth.tools.*}: malformed entries stop
   * the application here, unknown placeholders as the tools are guarded, unknown tool names once
   * every singleton exists.
   */
  @Bean
  @ConditionalOnMissingBean
  ToolBindings agentAuthToolBindings(AgentAuthProperties properties) {
    return ToolBindings.from(properties.getTools(), properties.getMcp().getToolScopes().keySet());
  }

  /**
   * The default resolver: the user's active authorizations for this application's agent, listed and
   * cached briefly. Lazy, so that an application using only the client needs no agent id; the
   * guards ask for it as they are built, at startup.
   */
  @Bean
  @Lazy
  @ConditionalOnMissingBean({AuthorizationResolver.class, AsyncAuthorizationResolver.class})
  public ActiveGrantResolver agentAuthAuthorizationResolver(
      AgentAuthClient client,
      ToolScopes scopes,
      AgentAuthProperties properties,
      Environment environment) {
    return new ActiveGrantResolver(
        client,
        agentId(properties, environment),
        scopes,
        properties.getMcp().getResolverCacheTtl());
  }

  /**
   * The agent whose authorizations the active-grant resolver uses: {@code agentauth.mcp.agent-id},
   * else {@code spring.application.name}. Neither stops the application: with no agent named, a
   * user's grant to any agent would do.
   */
  static String agentId(AgentAuthProperties properties, Environment environment) {
    String configured = properties.getMcp().getAgentId();
    if (configured != null && !configured.isBlank()) {
      requireAgentId(configured, "agentauth.mcp.agent-id");
      log.info(
          "agentauth resolves tool calls to authorizations of agent \"{}\""
              + " (agentauth.mcp.agent-id)",
          configured);
      return configured;
    }
    String applicationName = environment.getProperty("spring.application.name");
    if (applicationName != null && !applicationName.isBlank()) {
      requireAgentId(applicationName, "spring.application.name");
      log.info(
          "agentauth resolves tool calls to authorizations of agent \"{}\": agentauth.mcp.agent-id"
              + " is not set, so spring.application.name is used",
          applicationName);
      return applicationName;
    }
    throw new AgentAuthConfigurationException(
        "agentauth.mcp.agent-id is not set, nor is spring.application.name: the active-grant"
            + " resolver would run a tool under the user's grant to any agent, including grants"
            + " meant for another application.",
        "Set agentauth.mcp.agent-id to the agent_id the users' authorizations name for this"
            + " application (or set spring.application.name to it), or define an"
            + " AuthorizationResolver bean.");
  }

  /** An agent id as the service takes it: 1-256 characters, no control characters. */
  private static void requireAgentId(String agentId, String property) {
    if (agentId.length() > 256 || agentId.chars().anyMatch(Character::isISOControl)) {
      throw new AgentAuthConfigurationException(
          property
              + " is not a valid agent id for the active-grant resolver: expected 1-256 characters"
              + " without control characters, found "
              + agentId.length()
              + " characters"
              + (agentId.chars().anyMatch(Character::isISOControl)
                  ? " with a control character."
                  : "."),
          "Set agentauth.mcp.agent-id to the agent_id the users' authorizations name for this"
              + " application.");
    }
  }

  /**
   * Returns a guard builder with everything but the user id source: client, resolver, scopes,
   * listeners.
   */
  static AgentAuthToolGuard.Builder guardBuilder(
      AgentAuthClient client,
      ObjectProvider<AuthorizationResolver> resolvers,
      ObjectProvider<AsyncAuthorizationResolver> asyncResolvers,
      ToolScopes scopes,
      ObjectProvider<DecisionListener> listeners,
      AgentAuthProperties properties,
      ToolBindings bindings) {
    AgentAuthToolGuard.Builder b =
        AgentAuthToolGuard.builder()
            .client(client)
            .scopeMapper(scopes)
            .visibilityCacheTtl(properties.getMcp().getVisibilityCacheTtl());
    bindings.applyTo(b);
    AsyncAuthorizationResolver async = asyncResolvers.getIfUnique();
    AuthorizationResolver sync = resolvers.getIfUnique();
    if (async != null) {
      b.asyncAuthorizationResolver(async);
    } else if (sync instanceof ActiveGrantResolver active) {
      b.asyncAuthorizationResolver(active.async());
    } else if (sync != null) {
      b.authorizationResolver(sync);
    } else {
      throw new AgentAuthConfigurationException(
          "The agentauth guard needs one authorization resolver: expected one"
              + " AuthorizationResolver or AsyncAuthorizationResolver bean, or one marked @Primary,"
              + " found "
              + resolvers.stream().count()
              + " AuthorizationResolver and "
              + asyncResolvers.stream().count()
              + " AsyncAuthorizationResolver beans.",
          "Keep one resolver bean, or mark the one the guard should use @Primary; define none to"
              + " use the starter's active-grant resolver.");
    }
    List<DecisionListener> all = listeners.orderedStream().toList();
    if (!all.isEmpty()) {
      b.listener(
          decision -> {
            for (DecisionListener l : all) {
              l.onDecision(decision);
            }
          });
    }
    return b;
  }

  /** The roles whose keys may answer a confirmation ({@code POST /v1/confirmations/{nonce}}). */
  private static final List<ApiKeyRole> CONFIRMING_ROLES =
      List.of(ApiKeyRole.FULL, ApiKeyRole.APP, ApiKeyRole.TOOL_SERVER);

  /** How long the startup lookup of the key's role may take. */
  private static final Duration ROLE_LOOKUP_TIMEOUT = Duration.ofSeconds(5);

  /**
   * Whether the MCP guard asks the user in their client: {@code agentauth.mcp.elicitation.enabled}
   * when set; otherwise on exactly when the starter's API key may answer confirmations (roles
   * {@code full}, {@code app}, {@code tool_server}), looked up once ({@code GET
   * /v1/api-keys/current}). A failed lookup leaves it off with one WARN line: the guard then
   * returns the confirm result, as without elicitation.
   */
  static boolean elicitation(AgentAuthClient client, AgentAuthProperties properties) {
    Boolean configured = properties.getMcp().getElicitation().getEnabled();
    if (configured != null) {
      log.info(
          "agentauth {} the user in their MCP client to confirm calls"
              + " (agentauth.mcp.elicitation.enabled={})",
          configured ? "asks" : "does not ask",
          configured);
      return configured;
    }
    ApiKeyRole role;
    try {
      role =
          client
              .apiKeys()
              .current(RequestOptions.builder().timeout(ROLE_LOOKUP_TIMEOUT).maxRetries(0).build())
              .role();
    } catch (AgentAuthException e) {
      log.warn(
          "agentauth could not look up its API key's role ({}), so it will not ask users in their"
              + " MCP client to confirm calls; a call needing confirmation gets the confirm result."
              + " Set agentauth.mcp.elicitation.enabled to decide without the lookup",
          e.getMessage());
      return false;
    }
    boolean allowed = role != null && CONFIRMING_ROLES.contains(role);
    if (allowed) {
      log.info(
          "agentauth asks the user in their MCP client to confirm calls: its API key's role {} may"
              + " answer confirmations (agentauth.mcp.elicitation.enabled=false turns this off)",
          role);
    } else {
      log.info(
          "agentauth does not ask users in their MCP client to confirm calls: its API key's role"
              + " {} may not answer confirmations (a key of role tool_server may)",
          role);
    }
    return allowed;
  }

  /** Guarding of the tools of a Spring AI MCP server. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({McpSchema.class, AgentAuthToolGuard.class})
  @ConditionalOnProperty(
      prefix = AgentAuthProperties.MCP_PREFIX,
      name = "enabled",
      havingValue = "true",
      matchIfMissing = true)
  static class McpGuardConfiguration {

    /** Where the caller's user id comes from, per {@code agentauth.mcp.user-id.source}. */
    @Bean
    @ConditionalOnMissingBean
    UserIdSource agentAuthUserIdSource(AgentAuthProperties properties) {
      AgentAuthProperties.UserId userId = properties.getMcp().getUserId();
      if (userId.getSource() == AgentAuthProperties.UserIdSourceKind.ARGUMENT) {
        log.warn(
            "agentauth takes the user id from the tool argument \"{}\", which the model writes: a"
                + " prompt-injected model can act as another user. Use it only where the model's"
                + " input is trusted as much as the user (agentauth.mcp.user-id.source)",
            userId.getArgument());
        return UserIdSource.argument(userId.getArgument());
      }
      return UserIdSource.transportContext(AuthenticatedUserExtractor.USER_ID_KEY);
    }

    /** The guard of every tool the MCP server exposes. */
    @Bean
    @ConditionalOnMissingBean
    AgentAuthToolGuard agentAuthToolGuard(
        AgentAuthClient client,
        UserIdSource userIdSource,
        ObjectProvider<AuthorizationResolver> resolvers,
        ObjectProvider<AsyncAuthorizationResolver> asyncResolvers,
        ToolScopes scopes,
        ObjectProvider<DecisionListener> listeners,
        AgentAuthProperties properties,
        ToolBindings bindings) {
      Duration timeout = properties.getMcp().getElicitation().getTimeout();
      if (timeout == null || timeout.isNegative() || timeout.isZero()) {
        throw new AgentAuthConfigurationException(
            "agentauth.mcp.elicitation.timeout: expected a positive duration, found "
                + timeout
                + ".",
            "Set agentauth.mcp.elicitation.timeout to how long to wait for the user's answer, e.g."
                + " 2m (the default).");
      }
      return guardBuilder(
              client, resolvers, asyncResolvers, scopes, listeners, properties, bindings)
          .userIdSource(userIdSource)
          .elicitation(elicitation(client, properties))
          .confirmationTimeout(timeout)
          .build();
    }

    /**
     * Wraps the tool specifications before Spring AI builds the server from them. Static, as a bean
     * post-processor must be, and so given providers: the guard, the bindings and the properties
     * are looked up when a bean needs them, after binding, not while post-processors are
     * registered.
     */
    @Bean
    static ToolSpecificationGuardPostProcessor agentAuthToolSpecificationGuard(
        ObjectProvider<AgentAuthToolGuard> guard,
        ObjectProvider<ToolBindings> bindings,
        ObjectProvider<AgentAuthProperties> properties) {
      return new ToolSpecificationGuardPostProcessor(
          guard::getObject,
          bindings::getObject,
          () -> properties.getObject().getMcp().isHideUnauthorizedTools());
    }

    /** Adds the tools/list filter to an async server (Spring AI defines no customizer for it). */
    @Bean
    @ConditionalOnClass(name = "org.springframework.ai.mcp.customizer.McpAsyncServerCustomizer")
    @ConditionalOnProperty(
        prefix = AgentAuthProperties.MCP_PREFIX,
        name = "hide-unauthorized-tools",
        havingValue = "true")
    @ConditionalOnProperty(prefix = "spring.ai.mcp.server", name = "type", havingValue = "ASYNC")
    @ConditionalOnMissingBean(
        type = "org.springframework.ai.mcp.customizer.McpAsyncServerCustomizer")
    Object agentAuthAsyncToolFilterCustomizer(AgentAuthToolGuard guard) {
      return new ToolFilterCustomizers.Async(guard);
    }
  }

  /**
   * The caller's identity on a Spring WebMVC MCP server: the starter supplies Spring AI's
   * streamable-HTTP and stateless transports with a context extractor that reads the authenticated
   * principal. Backs off when the application defines the transport itself.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({
    WebMvcStreamableServerTransportProvider.class,
    McpServerAutoConfiguration.class,
    AgentAuthToolGuard.class
  })
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
  @ConditionalOnProperty(
      prefix = AgentAuthProperties.MCP_PREFIX,
      name = "enabled",
      havingValue = "true",
      matchIfMissing = true)
  @EnableConfigurationProperties(McpServerStreamableHttpProperties.class)
  static class WebMvcIdentityConfiguration {

    /** Reads the user id from the request's authenticated principal. */
    @Bean
    @ConditionalOnMissingBean
    AuthenticatedUserExtractor agentAuthUserExtractor(AgentAuthProperties properties) {
      AgentAuthProperties.UserId userId = properties.getMcp().getUserId();
      if (userId.getSource() == AgentAuthProperties.UserIdSourceKind.JWT_CLAIM) {
        if (!JwtClaims.available()) {
          throw new AgentAuthConfigurationException(
              "agentauth.mcp.user-id.source=jwt-claim needs Spring Security's OAuth2 JOSE support,"
                  + " which is not on the classpath.",
              "Add spring-boot-starter-oauth2-resource-server, or choose another"
                  + " agentauth.mcp.user-id.source.");
        }
        return new AuthenticatedUserExtractor(JwtClaims.claim(userId.getClaim()));
      }
      return AuthenticatedUserExtractor.principalName();
    }

    @Bean
    @ConditionalOnMissingBean
    @Conditional({
      McpServerStdioDisabledCondition.class,
      McpServerAutoConfiguration.EnabledStreamableServerCondition.class
    })
    WebMvcStreamableServerTransportProvider webMvcStreamableServerTransportProvider(
        @Qualifier("mcpServerJsonMapper") JsonMapper jsonMapper,
        McpServerStreamableHttpProperties serverProperties,
        AuthenticatedUserExtractor extractor) {
      return WebMvcStreamableServerTransportProvider.builder()
          .jsonMapper(new JacksonMcpJsonMapper(jsonMapper))
          .mcpEndpoint(serverProperties.getMcpEndpoint())
          .keepAliveInterval(serverProperties.getKeepAliveInterval())
          .disallowDelete(serverProperties.isDisallowDelete())
          .contextExtractor(extractor)
          .build();
    }

    @Bean
    @ConditionalOnMissingBean
    @Conditional({
      McpServerStdioDisabledCondition.class,
      McpServerStatelessAutoConfiguration.EnabledStatelessServerCondition.class
    })
    WebMvcStatelessServerTransport webMvcStatelessServerTransport(
        @Qualifier("mcpServerJsonMapper") JsonMapper jsonMapper,
        McpServerStreamableHttpProperties serverProperties,
        AuthenticatedUserExtractor extractor) {
      return WebMvcStatelessServerTransport.builder()
          .jsonMapper(new JacksonMcpJsonMapper(jsonMapper))
          .messageEndpoint(serverProperties.getMcpEndpoint())
          .contextExtractor(extractor)
          .build();
    }
  }

  /** The guard of tools a ChatClient calls in-process. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({ToolCallback.class, AgentAuthToolGuard.class, McpSchema.class})
  static class ToolCallbackConfiguration {

    @Bean
    @ConditionalOnMissingBean
    AgentAuthToolCallbacks agentAuthToolCallbacks(
        AgentAuthClient client,
        ObjectProvider<AuthorizationResolver> resolvers,
        ObjectProvider<AsyncAuthorizationResolver> asyncResolvers,
        ToolScopes scopes,
        ObjectProvider<DecisionListener> listeners,
        AgentAuthProperties properties,
        ToolBindings bindings) {
      // No elicitation: a ChatClient's tool call has no MCP client to ask.
      AgentAuthToolGuard guard =
          guardBuilder(client, resolvers, asyncResolvers, scopes, listeners, properties, bindings)
              .userIdSource(UserIdSource.transportContext(AuthenticatedUserExtractor.USER_ID_KEY))
              .build();
      return new AgentAuthToolCallbacks(
          guard,
          properties.getChat().getUserIdKey(),
          (tool, inputSchema) -> bindings.requireArguments(tool, inputSchema, false));
    }
  }

  /**
   * Decision metrics into the application's Micrometer registry. The registry is looked up when a
   * decision is recorded, not when beans are defined: Boot's metrics auto-configuration may come
   * after this one.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterRegistry.class)
  static class MetricsConfiguration {

    @Bean
    @ConditionalOnMissingBean
    MicrometerDecisionListener agentAuthMetricsListener(ObjectProvider<MeterRegistry> registry) {
      return new MicrometerDecisionListener(registry::getIfUnique);
    }
  }
}
