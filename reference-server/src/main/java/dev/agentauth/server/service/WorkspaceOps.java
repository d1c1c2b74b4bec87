package dev.agentauth.server.service;

import dev.agentauth.model.Plan;
import dev.agentauth.model.Workspace;
import dev.agentauth.model.WorkspaceKey;
import dev.agentauth.model.WorkspaceKeys;
import dev.agentauth.server.signing.SigningService;
import dev.agentauth.server.store.SigningKeyRow;
import dev.agentauth.server.store.Tx;
import dev.agentauth.server.store.WorkspaceRow;
import dev.agentauth.verifier.signing.ReceiptSigner;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Workspaces and their signing keys: creation, key rotation and the public keys document (API keys
 * are {@link ApiKeyOps}').
 */
public final class WorkspaceOps {
  private static final Pattern WORKSPACE_ID = Pattern.compile("[A-Za-z0-9_.:-]{1,64}");

  private final ServiceContext ctx;

  public WorkspaceOps(ServiceContext ctx) {
    this.ctx = ctx;
  }

  /**
   * Whether {@code id} is a valid workspace id: 1–64 characters from {@code A-Z a-z 0-9 _ . : -}.
   */
  public static boolean isValidWorkspaceId(String id) {
    return id != null && WORKSPACE_ID.matcher(id).matches();
  }

  /** Validates an admin workspace request. */
  public static void validateWorkspace(String workspaceId, Plan plan) {
    Validation v = new Validation();
    if (v.required("workspace_id", workspaceId) && !WORKSPACE_ID.matcher(workspaceId).matches()) {
      v.add("workspace_id", "must be 1 to 64 characters from A-Z a-z 0-9 _ . : -");
    }
    if (plan != null && !plan.isKnown()) {
      v.add("plan", "must be free or pro, got \"" + Validation.clip(plan.value()) + "\"");
    }
    v.throwIfInvalid();
  }

  /** Creates a workspace with its first signing key; 409 if it exists. */
  public Workspace createWorkspace(Tx tx, String workspaceId, String plan) {
    Instant now = ctx.now();
    WorkspaceRow row = new WorkspaceRow(workspaceId, plan, now);
    if (!tx.insertWorkspace(row)) {
      throw new ServiceException.Builder(
              ErrorCode.WORKSPACE_EXISTS, "workspace " + workspaceId + " exists")
          .field("workspace_id", "already exists")
          .build();
    }
    tx.insertSigningKey(newKey(workspaceId, now));
    return new Workspace(workspaceId, Plan.of(plan), now);
  }

  /**
   * Retires the active keys of a workspace and adds a new one, returning it. The change takes
   * effect one millisecond after the current time (and after every existing key's {@code
   * active_from}): a receipt issued in the rotation's own millisecond may already be signed with
   * the old key, and must stay valid under it, and a key's window is never empty.
   */
  public WorkspaceKey rotate(Tx tx, String workspaceId) {
    if (tx.workspace(workspaceId).isEmpty()) {
      throw ServiceException.notFound("workspace");
    }
    // Rotations in other instances, and signers storing signatures, wait for this one.
    tx.lock(SigningService.keysLockName(workspaceId));
    Instant latest = ctx.now();
    List<SigningKeyRow> existing = tx.signingKeys(workspaceId);
    for (SigningKeyRow k : existing) {
      if (k.activeFrom().isAfter(latest)) {
        latest = k.activeFrom();
      }
    }
    Instant cutover = latest.plusMillis(1);
    for (SigningKeyRow k : existing) {
      if (k.activeUntil() == null) {
        tx.updateSigningKey(k.retiredAt(cutover));
      }
    }
    SigningKeyRow fresh = newKey(workspaceId, cutover);
    tx.insertSigningKey(fresh);
    return publicKey(fresh);
  }

  /** The public keys document of a workspace; 404 for an unknown one. */
  public WorkspaceKeys keys(Tx tx, String workspaceId) {
    if (tx.workspace(workspaceId).isEmpty()) {
      throw ServiceException.notFound("workspace");
    }
    List<WorkspaceKey> keys = new ArrayList<>();
    for (SigningKeyRow k : tx.signingKeys(workspaceId)) {
      keys.add(publicKey(k));
    }
    return new WorkspaceKeys(workspaceId, keys);
  }

  /** Plans a workspace can have. */
  public static final Set<String> PLANS = Set.of("free", "pro");

  /** The plan a workspace row names; a value this server does not know counts as free. */
  static Plan.Known plan(String stored) {
    return Plan.of(stored).known().orElse(Plan.Known.FREE);
  }

  private SigningKeyRow newKey(String workspaceId, Instant now) {
    byte[] seed = ctx.randomBytes(32);
    ReceiptSigner signer = ReceiptSigner.fromSeed("k", seed);
    String keyId = workspaceId + "/" + ctx.ulid().toLowerCase(java.util.Locale.ROOT);
    return new SigningKeyRow(workspaceId, keyId, seed, signer.publicKey(), now, null);
  }

  private static WorkspaceKey publicKey(SigningKeyRow k) {
    return new WorkspaceKey(
        k.keyId(),
        "Ed25519",
        java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(k.publicKey()),
        k.activeFrom(),
        k.activeUntil());
  }
}
