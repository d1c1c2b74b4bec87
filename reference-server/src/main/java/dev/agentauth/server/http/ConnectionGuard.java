package dev.agentauth.server.http;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches every connection a connector opens: closes one beyond {@code perAddress} open from the
 * same client address (0: no limit), and closes one that has not delivered a complete request head
 * {@code headerTimeout} after it opened, however slowly it keeps sending (the idle timeout alone
 * would let a client that sends a byte now and then hold it forever). Thread-safe.
 */
final class ConnectionGuard implements Connection.Listener {
  private static final Logger log = LoggerFactory.getLogger(ConnectionGuard.class);

  private final int perAddress;
  private final long headerTimeoutNanos;
  private final Scheduler scheduler;
  private final Executor executor;
  private final ConcurrentHashMap<InetAddress, Integer> open = new ConcurrentHashMap<>();

  ConnectionGuard(int perAddress, Duration headerTimeout, Scheduler scheduler, Executor executor) {
    this.perAddress = perAddress;
    this.headerTimeoutNanos = headerTimeout.toNanos();
    this.scheduler = scheduler;
    this.executor = executor;
  }

  @Override
  public void onOpened(Connection connection) {
    EndPoint endPoint = connection.getEndPoint();
    InetAddress address = address(endPoint);
    if (perAddress > 0 && address != null) {
      int n = open.merge(address, 1, Integer::sum);
      if (n > perAddress) {
        log.debug("closing a connection from {}: {} open from it already", address, n - 1);
        // Off the selector's thread: closing runs the connection's close listeners.
        executor.execute(endPoint::close);
        return;
      }
    }
    scheduler.schedule(
        () -> {
          if (connection.getMessagesIn() == 0 && endPoint.isOpen()) {
            log.debug("closing a connection from {}: no request head in time", address);
            endPoint.close();
          }
        },
        headerTimeoutNanos,
        TimeUnit.NANOSECONDS);
  }

  @Override
  public void onClosed(Connection connection) {
    InetAddress address = address(connection.getEndPoint());
    if (perAddress > 0 && address != null) {
      open.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
    }
  }

  /** Connections open from {@code address} as counted (for tests). */
  int open(InetAddress address) {
    return open.getOrDefault(address, 0);
  }

  private static InetAddress address(EndPoint endPoint) {
    SocketAddress remote = endPoint.getRemoteSocketAddress();
    return remote instanceof InetSocketAddress inet ? inet.getAddress() : null;
  }
}
