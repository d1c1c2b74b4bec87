/**
 * Receipt signing, for issuers (the reference server) and tests: {@link
 * dev.agentauth.verifier.signing.ReceiptSigner}. Kept apart from the verifier's API; auditors need
 * only {@link dev.agentauth.verifier}.
 */
package dev.agentauth.verifier.signing;
