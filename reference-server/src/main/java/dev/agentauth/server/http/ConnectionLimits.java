package dev.agentauth.server.http;

import java.time.Duration;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;

/**
 * What one client, or all of them, may hold of the server's connections and request threads: the
 * connections open at once (in all and per client address), how long a connection may stay silent
 * or take to send its first request head, and how long a request body may take to arrive. See
 * docs/server.md "Limits".
 *
 * @param maxConnections connections open at once; a connection beyond it is closed as soon as it is
 *     accepted
 * @param maxConnectionsPerAddress connections open at once from one client address, 0 for no limit
 *     (behind a proxy every client shares the proxy's address); a connection beyond it is closed as
 *     soon as it is accepted
 * @param idleTimeout how long a connection may send nothing (between requests, or while a request
 *     is read) before it is closed
 * @param headerTimeout how long a new connection may take to deliver its first complete request
 *     head before it is closed
 * @param bodyTimeout how long a request body may take to arrive, counted from its head
 * @param minBodyRate the least average rate, in bytes a second, of a request body after its first
 *     {@value BodyDeadline#GRACE_SECONDS} seconds; 0 for none
 */
public record ConnectionLimits(
    int maxConnections,
    int maxConnectionsPerAddress,
    Duration idleTimeout,
    Duration headerTimeout,
    Duration bodyTimeout,
    long minBodyRate) {

  /** The defaults: 10,000 connections, 64 per address, 30 s idle, 10 s head, 10 s body, 1 KiB/s. */
  public static final ConnectionLimits DEFAULT =
      new ConnectionLimits(
          10_000, 64, Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(10), 1024);

  public ConnectionLimits {
    if (maxConnections < 1) {
      throw new IllegalArgumentException(
          "max connections must be at least 1, got " + maxConnections);
    }
    if (maxConnectionsPerAddress < 0) {
      throw new IllegalArgumentException(
          "max connections per address must be >= 0, got " + maxConnectionsPerAddress);
    }
    positive(idleTimeout, "idle timeout");
    positive(headerTimeout, "header timeout");
    positive(bodyTimeout, "body timeout");
    if (minBodyRate < 0) {
      throw new IllegalArgumentException("min body rate must be >= 0, got " + minBodyRate);
    }
  }

  private static void positive(Duration d, String what) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive, got " + d);
    }
  }

  /** The handler to put in front of the application's: it bounds how long a body may take. */
  public Handler.Wrapper bodyDeadline() {
    return new BodyDeadline(bodyTimeout, minBodyRate);
  }

  /**
   * Applies the connection limits to a started server's connectors. Done after start, when the
   * connectors exist; nothing has been accepted yet by then.
   */
  public void install(Server server) {
    for (Connector connector : server.getConnectors()) {
      if (connector instanceof AbstractConnector c) {
        c.setIdleTimeout(idleTimeout.toMillis());
        c.addBean(
            new ConnectionGuard(
                maxConnections, maxConnectionsPerAddress, headerTimeout, c.getScheduler()));
      }
    }
  }
}
