package dev.agentauth.spring.test;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.test.context.DynamicPropertyRegistrar;

/**
 * What {@link EmbeddedAgentAuthServer} imports: the {@link EmbeddedAgentAuth} bean and the
 * properties that point the starter at it. Import it directly ({@code @Import}) where an annotation
 * does not fit, e.g. in a shared {@code @TestConfiguration}.
 */
@Configuration(proxyBeanMethods = false)
public class EmbeddedAgentAuthConfiguration {

  /**
   * The embedded server, started lazily by the first property read and stopped with the context.
   */
  @Bean(destroyMethod = "close")
  public EmbeddedAgentAuth embeddedAgentAuth(Environment environment) {
    return new EmbeddedAgentAuth(environment);
  }

  /** Sets {@code agentauth.base-url} and {@code agentauth.api-key} to the embedded server's. */
  @Bean
  public DynamicPropertyRegistrar embeddedAgentAuthProperties(EmbeddedAgentAuth agentAuth) {
    return registry -> {
      registry.add("agentauth.base-url", agentAuth::baseUrl);
      registry.add("agentauth.api-key", () -> agentAuth.applicationKey().apiKey());
    };
  }
}
