/**
 * The starter's auto-configuration ({@link
 * dev.agentauth.spring.autoconfigure.AgentAuthAutoConfiguration}, registered in {@code
 * META-INF/spring/…AutoConfiguration.imports}) and what only it uses: the bean post-processor that
 * guards the MCP server's tool specifications, the tools/list filter customizers, the checks of
 * {@code agentauth.tools} at startup, and the failure analyzer that reports a startup mistake as
 * Spring Boot reports its own. Applications name only the auto-configuration class, and only to
 * import or exclude it; the rest is package-private.
 */
package dev.agentauth.spring.autoconfigure;
