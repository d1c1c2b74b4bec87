package dev.agentauth.server.service;

import dev.agentauth.model.Plan;

/** The authenticated caller of a request: its workspace, that workspace's plan, and its key. */
public record Caller(String workspaceId, Plan.Known plan, String apiKeyHash) {

  /** Whether the workspace's plan includes the Pro+ features. */
  public boolean isPro() {
    return plan == Plan.Known.PRO;
  }
}
