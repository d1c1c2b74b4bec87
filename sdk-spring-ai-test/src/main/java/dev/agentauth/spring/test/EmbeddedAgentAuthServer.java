package dev.agentauth.spring.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Import;

/**
 * On a Spring Boot test class: starts an embedded agentauth reference server (in memory, on a free
 * loopback port) for the test's application context, and points the starter at it: {@code
 * agentauth.base-url} is its URL and {@code agentauth.api-key} a key of role {@code tool_server}
 * ({@code agentauth.test.api-key-role} chooses another). The server stops with the context.
 *
 * <pre>{@code
 * @SpringBootTest
 * @EmbeddedAgentAuthServer
 * class MyToolsTest {
 *   @Autowired EmbeddedAgentAuth agentAuth; // grants, approvals, receipts: agentAuth.adminClient()
 * }
 * }</pre>
 *
 * <p>Properties the test sets itself ({@code @SpringBootTest(properties = ...)}, {@code
 * application.yml}) are overridden for those two keys only.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(EmbeddedAgentAuthConfiguration.class)
public @interface EmbeddedAgentAuthServer {}
