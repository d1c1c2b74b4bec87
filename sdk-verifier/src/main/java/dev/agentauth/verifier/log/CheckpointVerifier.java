package dev.agentauth.verifier.log;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * Verifies signed checkpoints of one workspace's receipt log, built once from trusted material: the
 * workspace's log keys (the Ed25519 keys of its keys document, {@code GET
 * /v1/workspaces/{id}/keys}, current and retired) and the witness keys the caller trusts.
 *
 * <p>{@link #verify} runs these steps in order, and throws {@link LogVerificationException} naming
 * the failed one:
 *
 * <ol>
 *   <li>parse the signed note ({@link SignedNote#parse}) and its text as a checkpoint body ({@link
 *       Checkpoint#parseBody});
 *   <li>the origin must end with {@code /agentauth/<workspace id>};
 *   <li>at least one signature line named after the origin must verify with a log key whose key
 *       hash it carries (the hash only picks candidates; the signature decides);
 *   <li>every line by a given witness key (same name and key hash) must verify as a cosignature;
 *       lines by other keys are listed in {@link VerifiedCheckpoint#ignored} and count for nothing.
 * </ol>
 *
 * <p>Whether enough witnesses cosigned is the caller's decision: see {@link
 * VerifiedCheckpoint#witnesses}. Thread-safe and immutable.
 *
 * <pre>{@code
 * CheckpointVerifier verifier = CheckpointVerifier.create(keysDocument, List.of(witness));
 * VerifiedCheckpoint v = verifier.verify(noteText);
 * MerkleProofs.verifyInclusion(index, v.checkpoint().treeSize(), leaf, proof,
 *     v.checkpoint().rootHash());
 * }</pre>
 */
public final class CheckpointVerifier {

  private final String workspaceId;
  private final List<byte[]> logKeys;
  private final List<WitnessKey> witnesses;

  private CheckpointVerifier(String workspaceId, List<byte[]> logKeys, List<WitnessKey> witnesses) {
    this.workspaceId = workspaceId;
    this.logKeys = logKeys;
    this.witnesses = witnesses;
  }

  /**
   * Creates a verifier from a workspace's log public keys.
   *
   * @param workspaceId the workspace whose log this is
   * @param logPublicKeys 32-byte Ed25519 public keys, at least one (copied)
   * @param witnesses the witness keys whose cosignatures count (copied)
   */
  public static CheckpointVerifier of(
      String workspaceId, Collection<byte[]> logPublicKeys, Collection<WitnessKey> witnesses) {
    NoteFormat.requireName(workspaceId, "workspace id");
    List<byte[]> keys = new ArrayList<>();
    for (byte[] key : logPublicKeys) {
      if (key == null || key.length != 32) {
        throw new IllegalArgumentException("an Ed25519 public key is 32 bytes");
      }
      keys.add(key.clone());
    }
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("at least one log key is needed");
    }
    return new CheckpointVerifier(workspaceId, List.copyOf(keys), List.copyOf(witnesses));
  }

  /**
   * Creates a verifier from a keys document: its {@code workspace_id} and the {@code public_key}
   * (unpadded base64url, 32 bytes) of every one of its {@code keys}.
   *
   * @throws LogVerificationException if the document does not have that shape
   */
  public static CheckpointVerifier create(JsonNode keysDocument, Collection<WitnessKey> witnesses) {
    Objects.requireNonNull(keysDocument, "keysDocument");
    JsonNode ws = keysDocument.get("workspace_id");
    JsonNode keys = keysDocument.get("keys");
    if (ws == null || !ws.isTextual() || keys == null || !keys.isArray() || keys.isEmpty()) {
      throw new LogVerificationException(
          "keys document must have a workspace_id string and a non-empty keys array");
    }
    List<byte[]> publicKeys = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      JsonNode k = keys.get(i).get("public_key");
      byte[] key = null;
      if (k != null && k.isTextual()) {
        try {
          key = Base64.getUrlDecoder().decode(k.textValue());
        } catch (IllegalArgumentException e) {
          key = null;
        }
      }
      if (key == null || key.length != 32) {
        throw new LogVerificationException(
            "keys document: keys[" + i + "].public_key must be a 32-byte key in base64url");
      }
      publicKeys.add(key);
    }
    try {
      return of(ws.textValue(), publicKeys, witnesses);
    } catch (IllegalArgumentException e) {
      throw new LogVerificationException("keys document: " + e.getMessage());
    }
  }

  /** The workspace whose checkpoints this verifies. */
  public String workspaceId() {
    return workspaceId;
  }

  /**
   * Verifies a signed checkpoint note (see the class description for the steps).
   *
   * @param note the note as the log serves it: checkpoint body, empty line, signature lines
   * @return the checkpoint and the cosignatures that verified
   * @throws LogVerificationException naming the step that failed
   */
  public VerifiedCheckpoint verify(String note) {
    SignedNote parsed = SignedNote.parse(note);
    Checkpoint checkpoint = Checkpoint.parseBody(parsed.text());
    String origin = checkpoint.origin();
    String suffix = "/agentauth/" + workspaceId;
    if (!origin.endsWith(suffix) || origin.length() == suffix.length()) {
      throw new LogVerificationException(
          "checkpoint origin " + NoteFormat.show(origin) + " is not <host>" + suffix);
    }
    byte[] text = parsed.text().getBytes(StandardCharsets.UTF_8);
    boolean logSigned = false;
    List<VerifiedCheckpoint.Cosignature> cosignatures = new ArrayList<>();
    List<String> ignored = new ArrayList<>();
    for (SignedNote.Signature s : parsed.signatures()) {
      if (s.keyName().equals(origin)) {
        if (verifiesWithLogKey(origin, s, text)) {
          logSigned = true;
          continue;
        }
      }
      WitnessKey witness = witnessFor(s);
      if (witness != null) {
        cosignatures.add(
            new VerifiedCheckpoint.Cosignature(witness, witness.verify(checkpoint, s)));
      } else if (!s.keyName().equals(origin)) {
        ignored.add(s.toString());
      }
    }
    if (!logSigned) {
      throw new LogVerificationException(
          "checkpoint of "
              + origin
              + " is not signed by any key of workspace "
              + workspaceId
              + "'s keys document");
    }
    return new VerifiedCheckpoint(checkpoint, parsed, cosignatures, ignored);
  }

  private boolean verifiesWithLogKey(String origin, SignedNote.Signature s, byte[] text) {
    byte[] signature = s.signature();
    for (byte[] key : logKeys) {
      if (NoteSigner.keyHash(origin, key) == s.keyHash()
          && NoteFormat.verify(key, text, signature)) {
        return true;
      }
    }
    return false;
  }

  private WitnessKey witnessFor(SignedNote.Signature s) {
    for (WitnessKey w : witnesses) {
      if (w.matches(s)) {
        return w;
      }
    }
    return null;
  }
}
