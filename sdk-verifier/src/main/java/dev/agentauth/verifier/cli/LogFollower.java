package dev.agentauth.verifier.cli;

import dev.agentauth.verifier.log.Checkpoint;
import dev.agentauth.verifier.log.LogVerificationException;
import dev.agentauth.verifier.log.MerkleProofs;
import dev.agentauth.verifier.log.SignedNote;
import dev.agentauth.verifier.log.VerifiedCheckpoint;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code log audit} and {@code log witness} share: accept a new checkpoint only if it extends
 * the one in the state file. A smaller tree, a different root at the same size, or a consistency
 * proof that fails is a {@link LogVerificationException} (exit 1); the state file is then left as
 * it was. Without a state file the checkpoint is trusted on first use, and the run says so.
 */
final class LogFollower {

  private LogFollower() {}

  /**
   * Checks {@code current} against the state file and, when it is accepted, returns it; the caller
   * stores it with {@link #store}.
   *
   * @param current the newest checkpoint, already verified with its quorum
   * @throws LogVerificationException if the log forked or shrank
   * @throws InputException if the state file is unreadable or of another log, or an API key is
   *     needed and missing
   */
  static void follow(
      LogOptions.Context context, Path state, VerifiedCheckpoint current, PrintWriter out)
      throws InputException {
    Checkpoint now = current.checkpoint();
    String stored = SecretFiles.readIfExists(state, "state file");
    if (stored == null) {
      out.println(
          "TRUST ON FIRST USE: no state file "
              + state
              + "; accepting checkpoint size "
              + now.treeSize()
              + " root "
              + now.rootBase64()
              + " without history. Later runs check every checkpoint against it.");
      return;
    }
    Checkpoint old;
    try {
      old = context.verifier().verify(stored).checkpoint();
    } catch (LogVerificationException e) {
      throw new LogVerificationException(
          "the checkpoint stored in " + state + " does not verify: " + e.getMessage());
    }
    if (!old.origin().equals(now.origin())) {
      throw new InputException(
          "state file "
              + state
              + " is for log "
              + old.origin()
              + ", not "
              + now.origin()
              + ": use one state file per log");
    }
    String was = "stored checkpoint (size " + old.treeSize() + ", root " + old.rootBase64() + ")";
    String is = "newest checkpoint (size " + now.treeSize() + ", root " + now.rootBase64() + ")";
    if (now.treeSize() < old.treeSize()) {
      throw rejected(
          state,
          current,
          "LOG SHRANK: the "
              + is
              + " is smaller than the "
              + was
              + (context.quorum() > 0
                  ? " (or the witnesses have not yet cosigned a checkpoint as new as the stored"
                      + " one: keep one state file per --witness-quorum)"
                  : ""));
    }
    if (now.treeSize() == old.treeSize()) {
      if (!now.equals(old)) {
        throw rejected(
            state,
            current,
            "LOG FORKED: the " + is + " has the size of the " + was + " but another root");
      }
      out.println("UNCHANGED: the log is still at size " + now.treeSize() + " with the same root");
      return;
    }
    if (!context.client().hasApiKey()) {
      throw new InputException(
          "the log grew from "
              + old.treeSize()
              + " to "
              + now.treeSize()
              + " leaves; proving the new checkpoint consistent with the stored one needs an API"
              + " key (AGENTAUTH_API_KEY or --api-key-file); the state file is unchanged");
    }
    List<byte[]> proof = context.client().consistency(old.treeSize(), now.treeSize());
    try {
      MerkleProofs.verifyConsistency(
          old.treeSize(), now.treeSize(), old.rootHash(), now.rootHash(), proof);
    } catch (LogVerificationException e) {
      throw rejected(
          state,
          current,
          "LOG FORKED: the " + is + " is not consistent with the " + was + ": " + e.getMessage());
    }
    out.println(
        "CONSISTENT: the log grew from "
            + old.treeSize()
            + " to "
            + now.treeSize()
            + " leaves and keeps every earlier one");
  }

  /**
   * Keeps the refused checkpoint as evidence in {@code STATE.rejected} (two signed checkpoints of
   * one size with different roots prove the fork to anyone) and returns the failure to throw.
   */
  private static LogVerificationException rejected(
      Path state, VerifiedCheckpoint current, String message) throws InputException {
    Path evidence = state.resolveSibling(state.getFileName() + ".rejected");
    SecretFiles.replace(evidence, current.note().format(), "evidence file");
    return new LogVerificationException(
        message + "; the refused checkpoint is kept in " + evidence + ", the state file unchanged");
  }

  /**
   * Stores an accepted checkpoint in the state file (temporary file, atomic rename, 0600): the
   * checkpoint and the log's signature, without cosignatures, so that a later run with other
   * witness keys still reads it.
   */
  static void store(Path state, VerifiedCheckpoint current) throws InputException {
    List<SignedNote.Signature> logSignatures = new ArrayList<>();
    for (SignedNote.Signature s : current.note().signatures()) {
      if (s.keyName().equals(current.checkpoint().origin())) {
        logSignatures.add(s);
      }
    }
    SecretFiles.replace(
        state, new SignedNote(current.note().text(), logSignatures).format(), "state file");
  }
}
