/**
 * The receipt log's formats and proofs, for auditors, witnesses and the server alike.
 *
 * <p>Every signed receipt of a workspace is a leaf of an append-only Merkle tree (RFC 9162 §2.1):
 * {@link dev.agentauth.verifier.log.LogHash} defines leaf and node hashes; {@link
 * dev.agentauth.verifier.log.MerkleRoot} computes a root from leaves; {@link
 * dev.agentauth.verifier.log.MerkleProofs} checks inclusion and consistency proofs. The log
 * publishes its state as a {@link dev.agentauth.verifier.log.Checkpoint} (C2SP tlog-checkpoint) in
 * a C2SP signed note ({@link dev.agentauth.verifier.log.SignedNote}), signed by {@link
 * dev.agentauth.verifier.log.NoteSigner} with the workspace's receipt-signing key and verified by
 * {@link dev.agentauth.verifier.log.CheckpointVerifier} against the workspace's keys document.
 * Witnesses cosign checkpoints (C2SP tlog-cosignature v1) with {@link
 * dev.agentauth.verifier.log.CosignatureSigner}; their public keys are {@link
 * dev.agentauth.verifier.log.WitnessKey}s. Every check failure is a {@link
 * dev.agentauth.verifier.log.LogVerificationException} saying what failed.
 *
 * <p>Choices within those specifications: a checkpoint has exactly three lines (no extension
 * lines); a note is at most 1 MiB with at most 100 signature lines; key names have no whitespace,
 * {@code +} or control character and at most 256 characters; base64 must be canonical; a
 * consistency proof from the empty tree is refused; the empty tree's root is {@link
 * dev.agentauth.verifier.log.LogHash#emptyRoot()} (a method, so no caller can change it).
 */
package dev.agentauth.verifier.log;
