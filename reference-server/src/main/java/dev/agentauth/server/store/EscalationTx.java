package dev.agentauth.server.store;

import dev.agentauth.server.domain.EscalationRow;
import java.util.Optional;

/**
 * Escalations by id and the filtered list (creation and updates are a check's, {@link CheckTx}).
 */
public interface EscalationTx {

  // Revocation writes no escalation row: every read here returns an escalation still
  // pending when its authorization was revoked with its lifetime ended at the revocation ({@code
  // expiresAt} = the authorization's {@code revoked_at}), so it reads as {@code expired}.
  Optional<EscalationRow> escalation(String workspaceId, String escalationId);

  /** Escalations in id order; {@code status} (evaluated at {@code now}) filters when non-null. */
  Page<EscalationRow> listEscalations(EscalationFilter filter, PageRequest page);
}
