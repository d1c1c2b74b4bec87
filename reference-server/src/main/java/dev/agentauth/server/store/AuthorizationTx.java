package dev.agentauth.server.store;

import dev.agentauth.server.domain.AuthorizationRow;
import java.util.Optional;

/** Authorizations: lookups, creation and the filtered list. */
public interface AuthorizationTx {

  Optional<AuthorizationRow> authorization(String workspaceId, String authorizationId);

  /** Like {@link #authorization} but locks the row until the transaction ends. */
  Optional<AuthorizationRow> authorizationForUpdate(String workspaceId, String authorizationId);

  void insertAuthorization(AuthorizationRow row);

  /**
   * Authorizations in id order after {@code afterId} (exclusive, null for the start), filtered by
   * the non-null arguments; {@code status} is evaluated at {@code now}.
   */
  Page<AuthorizationRow> listAuthorizations(AuthorizationFilter filter, PageRequest page);
}
