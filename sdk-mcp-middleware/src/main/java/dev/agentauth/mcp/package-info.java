/** agentauth mcp. */
package dev.agentauth.mcp;
