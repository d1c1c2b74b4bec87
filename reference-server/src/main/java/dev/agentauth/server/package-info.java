/** agentauth server. */
package dev.agentauth.server;
