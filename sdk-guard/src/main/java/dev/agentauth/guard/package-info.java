/**
 * The framework-neutral guard of tool calls: {@link dev.agentauth.guard.ToolGuard} decides each
 * call (user, authorization, resource, check, listener) and returns the decision object a model
 * reads. The MCP server guard, the Spring AI starter and the LangChain4j decorators are adapters
 * over it; write your own for another agent framework.
 */
package dev.agentauth.guard;
