/**
 * Guards the tools of an MCP server built with the official MCP Java SDK: every tool call is
 * decided by agentauth ({@code POST /v1/check}) before the tool runs.
 *
 * <p>Start with {@link dev.agentauth.mcp.AgentAuthToolGuard}: build one guard, then {@code wrap}
 * the tool specifications before handing them to {@code McpServer.sync(...)} or {@code
 * McpServer.async(...)}. Where the calling user's identity comes from is an explicit choice ({@link
 * dev.agentauth.mcp.UserIdSource}); prefer the authenticated transport over a tool argument.
 */
package dev.agentauth.mcp;
