/**
 * Internals of the verifier library shared with its command line. Not a supported API: anything
 * here may change in any release.
 */
package dev.agentauth.verifier.internal;
