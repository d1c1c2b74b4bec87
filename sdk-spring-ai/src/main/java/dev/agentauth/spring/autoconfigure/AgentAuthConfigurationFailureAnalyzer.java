package dev.agentauth.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a startup stopped by the starter's configuration as Spring Boot reports its own ("
 * APPLICATION FAILED TO START", a description naming the property, an action), instead of a stack
 * trace. Registered in {@code META-INF/spring.factories}.
 */
class AgentAuthConfigurationFailureAnalyzer
    extends AbstractFailureAnalyzer<AgentAuthConfigurationException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, AgentAuthConfigurationException cause) {
    return new FailureAnalysis(cause.description(), cause.action(), cause);
  }
}
