/**
 * The auditor command line, {@code agentauth-verify}: verifies receipt files offline against a
 * workspace's keys document (optionally pinned to trusted key fingerprints, on every core) and,
 * with {@code --chain}, each authorization's receipt chain; {@code keys fingerprint} prints the
 * fingerprints of a keys document; {@code log audit}, {@code log witness} and {@code verify --log}
 * check the workspace's receipt log ({@link dev.agentauth.verifier.log}). Entry point: {@link
 * dev.agentauth.verifier.cli.VerifyCli}.
 */
package dev.agentauth.verifier.cli;
