package dev.agentauth.verifier.log;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A checkpoint whose log signature verified, with the cosignatures that verified.
 *
 * @param checkpoint the checkpoint
 * @param note the signed note as received (text and every signature line)
 * @param cosignatures the cosignatures by the given witness keys that verified, in note order
 * @param ignored the names and key hashes of signature lines by keys not given (neither a key of
 *     the keys document under the origin nor a given witness), which count for nothing
 */
public record VerifiedCheckpoint(
    Checkpoint checkpoint, SignedNote note, List<Cosignature> cosignatures, List<String> ignored) {

  /**
   * A verified cosignature.
   *
   * @param witness the witness's key
   * @param timestamp when the witness says it cosigned, seconds since the epoch
   */
  public record Cosignature(WitnessKey witness, long timestamp) {}

  /** Copies the lists. */
  public VerifiedCheckpoint {
    Objects.requireNonNull(checkpoint, "checkpoint");
    Objects.requireNonNull(note, "note");
    cosignatures = List.copyOf(cosignatures);
    ignored = List.copyOf(ignored);
  }

  /** The names of the distinct witnesses whose cosignature verified. */
  public Set<String> witnesses() {
    Set<String> names = new LinkedHashSet<>();
    for (Cosignature c : cosignatures) {
      names.add(c.witness().name());
    }
    return names;
  }
}
