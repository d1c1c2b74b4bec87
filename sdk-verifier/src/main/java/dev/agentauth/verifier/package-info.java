/**
 * Offline verification of agentauth receipts: Ed25519-signed records of authorization decisions.
 *
 * <p>Start with {@link dev.agentauth.verifier.ReceiptVerifier}, built once from a workspace's keys
 * document; {@link dev.agentauth.verifier.ChainVerifier} checks all receipts of one authorization
 * together. {@link dev.agentauth.verifier.Canonicalizer} defines the signed bytes. This package
 * needs only Jackson and Bouncy Castle at run time.
 */
package dev.agentauth.verifier;
