package dev.agentauth.guard;

import dev.agentauth.model.CheckResult;
import dev.agentauth.model.Decision;
import dev.agentauth.model.Reason;

/**
 * The one-sentence {@code message} of every refused call (decisions §19): written for the model, it
 * says who must act, whether calling again can help, and what to tell the user.
 */
public final class ModelMessages {
  private ModelMessages() {}

  public static String of(String tool, CheckResult r) {
    if (Decision.CONFIRM.equals(r.decision())) {
      return "The user must approve "
          + tool
          + " for this call; ask them to confirm it and call the tool again with the same"
          + " arguments once they have.";
    }
    if (Decision.ESCALATE.equals(r.decision())) {
      String to = r.escalationTo();
      if (to == null && r.escalation() != null) {
        to = r.escalation().escalationTo();
      }
      return (to == null ? "An approver" : "The approver \"" + to + "\"")
          + " must approve this call of "
          + tool
          + "; tell the user it is waiting for approval and call the tool again with the same"
          + " arguments once it is approved.";
    }
    if (Boolean.TRUE.equals(r.fallback())) {
      return "The authorization service could not be reached, so "
          + tool
          + " did not run; calling again later may help, and tell the user if it keeps failing.";
    }
    return deny(tool, r.reason());
  }

  public static String local(String tool, Reason reason, String argument) {
    if (ResourceBindingException.REASON.equals(reason.value())) {
      return argument == null
          ? "The arguments of "
              + tool
              + " cannot name what the user approves, so it did not run; call it again with"
              + " shorter or simpler arguments."
          : "The argument \""
              + argument
              + "\" of "
              + tool
              + " is missing or not a non-empty string or integer, so it did not run; call it"
              + " again with a valid value.";
    }
    if (Reason.MISSING_USER_ID.equals(reason)) {
      return "No user is identified for this call, so "
          + tool
          + " did not run; calling again will not help until the user signs in to the client.";
    }
    return deny(tool, reason);
  }

  public static String serviceUnavailable(String tool) {
    return "The authorization service refused this tool server's credentials, so "
        + tool
        + " did not run; calling again will not help until an operator fixes it, so tell the"
        + " user the tool is unavailable.";
  }

  public static String declined(String tool) {
    return "The user declined this call of "
        + tool
        + "; do not call it again unless the user asks you to.";
  }

  private static String deny(String tool, Reason reason) {
    String v = reason.value();
    return switch (v) {
      case "authorization_not_found" ->
          "The user has not authorized "
              + tool
              + "; calling again will not help, so tell the user they must grant access first.";
      case "authorization_revoked" ->
          "The user's authorization for "
              + tool
              + " was revoked; calling again will not help, so tell the user they must grant"
              + " access again.";
      case "authorization_expired" ->
          "The user's authorization for "
              + tool
              + " has expired; calling again will not help, so tell the user they must grant"
              + " access again.";
      case "scope_not_authorized" ->
          "The user's authorization does not include "
              + tool
              + "; calling again will not help, so tell the user they must grant it first.";
      case "resource_tombstoned" ->
          "What this call of "
              + tool
              + " acts on is blocked; calling again will not help, so tell the user.";
      case "rate_limit_exceeded" ->
          "The daily limit for "
              + tool
              + " is reached; calling again today will not help, so tell the user.";
      case "budget_exceeded" ->
          "The budget for " + tool + " is spent; calling again will not help, so tell the user.";
      case "escalation_rejected" ->
          "An approver rejected this call of "
              + tool
              + "; do not call it again, and tell the user it was rejected.";
      default ->
          "The call of "
              + tool
              + " was not allowed ("
              + v
              + "); calling again will not help, so tell the user.";
    };
  }
}
