/**
 * Webhook delivery: one worker per server instance leases due deliveries from the store's outbox,
 * sends them signed, outside any transaction, and records each attempt afterwards.
 */
package dev.agentauth.server.webhook;
