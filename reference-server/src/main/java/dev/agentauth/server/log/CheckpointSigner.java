package dev.agentauth.server.log;

import dev.agentauth.server.store.SigningKeyRow;
import dev.agentauth.verifier.log.Checkpoint;
import dev.agentauth.verifier.log.NoteSigner;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Signs checkpoints: a C2SP signed note whose key name is the log's origin, {@code <public
 * host>/agentauth/<workspace id>}, signed with the workspace's current receipt-signing key (the one
 * a receipt issued now would be signed with).
 */
public final class CheckpointSigner {
  private final Supplier<String> publicUrl;
  private final Map<String, NoteSigner> signers = new ConcurrentHashMap<>();

  /**
   * @param publicUrl the server's public base URL, e.g. {@code https://auth.example.com}
   */
  public CheckpointSigner(Supplier<String> publicUrl) {
    this.publicUrl = publicUrl;
  }

  /** The public host: host[:port] of the public URL, no scheme. */
  public String publicHost() {
    return URI.create(publicUrl.get()).getRawAuthority();
  }

  /** The log's origin (and signed-note key name) for {@code workspaceId}. */
  public String origin(String workspaceId) {
    return Checkpoint.origin(publicHost(), workspaceId);
  }

  /** The key a checkpoint issued at {@code now} is signed with: the newest valid one. */
  static SigningKeyRow current(List<SigningKeyRow> keys, Instant now) {
    SigningKeyRow best = null;
    for (SigningKeyRow k : keys) {
      if (k.validAt(now) && (best == null || k.activeFrom().isAfter(best.activeFrom()))) {
        best = k;
      }
    }
    if (best == null) {
      for (SigningKeyRow k : keys) {
        if (best == null || k.activeFrom().isAfter(best.activeFrom())) {
          best = k;
        }
      }
    }
    if (best == null) {
      throw new IllegalStateException("the workspace has no signing key");
    }
    return best;
  }

  /** The signed note of the checkpoint of {@code size} leaves with {@code root}. */
  public String sign(
      String workspaceId, long size, byte[] root, List<SigningKeyRow> keys, Instant now) {
    String origin = origin(workspaceId);
    SigningKeyRow key = current(keys, now);
    NoteSigner signer =
        signers.computeIfAbsent(
            origin + "\n" + key.keyId(), k -> NoteSigner.ed25519(origin, key.privateSeed()));
    return signer.sign(new Checkpoint(origin, size, root).body());
  }
}
