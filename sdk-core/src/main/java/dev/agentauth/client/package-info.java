/** agentauth client. */
package dev.agentauth.client;
