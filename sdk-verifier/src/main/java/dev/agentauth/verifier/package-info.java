/** agentauth verifier. */
package dev.agentauth.verifier;
