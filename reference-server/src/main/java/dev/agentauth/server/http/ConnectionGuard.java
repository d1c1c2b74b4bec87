package dev.agentauth.server.http;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches every connection a connector opens: closes one beyond {@code maxConnections} open in all
 * or beyond {@code perAddress} open from the same client address (0: no limit) as soon as it is
 * accepted, before any request on it is read; and closes one that has not delivered a complete
 * request head {@code headerTimeout} after it opened, however slowly it keeps sending (the idle
 * timeout alone would let a client that sends a byte now and then hold it forever). Thread-safe.
 */
final class ConnectionGuard implements Connection.Listener {
  private static final Logger log = LoggerFactory.getLogger(ConnectionGuard.class);

  private final int maxConnections;
  private final int perAddress;
  private final long headerTimeoutNanos;
  private final Scheduler scheduler;
  private final AtomicInteger total = new AtomicInteger();
  private final ConcurrentHashMap<InetAddress, Integer> open = new ConcurrentHashMap<>();

  /** Each connection counted, with the address it is counted under (NONE for none). */
  private final ConcurrentHashMap<Connection, Object> counted = new ConcurrentHashMap<>();

  private static final Object NONE = new Object();

  ConnectionGuard(int maxConnections, int perAddress, Duration headerTimeout, Scheduler scheduler) {
    this.maxConnections = maxConnections;
    this.perAddress = perAddress;
    this.headerTimeoutNanos = headerTimeout.toNanos();
    this.scheduler = scheduler;
  }

  @Override
  public void onOpened(Connection connection) {
    EndPoint endPoint = connection.getEndPoint();
    InetAddress address = address(endPoint);
    boolean perAddressLimited = perAddress > 0 && address != null;
    int all = total.incrementAndGet();
    int fromAddress = perAddressLimited ? open.merge(address, 1, Integer::sum) : 0;
    // Kept: a closed connection no longer knows its remote address.
    counted.put(connection, perAddressLimited ? address : NONE);
    if (all > maxConnections || fromAddress > perAddress) {
      log.debug(
          "closing a connection from {}: {} open in all, {} from its address",
          address,
          all - 1,
          fromAddress - 1);
      release(connection);
      // At once, before any request on it can be read and served.
      endPoint.close();
      return;
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
    release(connection);
  }

  /** Stops counting {@code connection}; once only, whichever of refusal and close comes first. */
  private void release(Connection connection) {
    Object key = counted.remove(connection);
    if (key == null) {
      return;
    }
    total.decrementAndGet();
    if (key instanceof InetAddress address) {
      open.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
    }
  }

  private static InetAddress address(EndPoint endPoint) {
    SocketAddress remote = endPoint.getRemoteSocketAddress();
    return remote instanceof InetSocketAddress inet ? inet.getAddress() : null;
  }
}
