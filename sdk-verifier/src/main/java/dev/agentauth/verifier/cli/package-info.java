/**
 * The auditor command line, {@code agentauth-verify}: verifies receipt files offline against a
 * workspace's keys document and, with {@code --chain}, each authorization's receipt chain. Entry
 * point: {@link dev.agentauth.verifier.cli.VerifyCli}.
 */
package dev.agentauth.verifier.cli;
