package dev.agentauth.server.store;

import dev.agentauth.server.domain.GrantRow;
import dev.agentauth.server.domain.NonceRow;
import java.util.Optional;

/** Confirmation nonces by value, their resolution, and the confirmation windows they open. */
public interface ConfirmationTx {

  Optional<NonceRow> nonce(String workspaceId, String nonce);

  void updateNonce(NonceRow row);

  void insertGrant(GrantRow row);
}
