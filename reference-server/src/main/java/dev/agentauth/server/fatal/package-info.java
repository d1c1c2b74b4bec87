/**
 * What the server does with an error that leaves the JVM in a state it cannot trust (an {@link
 * java.lang.OutOfMemoryError}): {@link dev.agentauth.server.fatal.FatalErrors} classifies and
 * reports it, {@link dev.agentauth.server.fatal.FatalErrorPolicy} ends the process.
 */
package dev.agentauth.server.fatal;
