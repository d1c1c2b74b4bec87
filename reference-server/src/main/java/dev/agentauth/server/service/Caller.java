package dev.agentauth.server.service;

/** The authenticated caller of a request: its workspace, that workspace's plan, and its key. */
public record Caller(String workspaceId, String plan, String apiKeyHash) {

  /** Whether the workspace's plan includes the Pro+ features. */
  public boolean isPro() {
    return "pro".equals(plan);
  }
}
