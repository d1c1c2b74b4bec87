package dev.agentauth.server.http;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.NanoTime;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * Bounds how long a request body may take to arrive, so that a client sending its body slowly
 * cannot hold a request thread that reads it. Reading the body fails with a {@link
 * TimeoutException} (which the {@link RequestReader} answers 408 {@code request_timeout}, closing
 * the connection) once either bound is passed:
 *
 * <ul>
 *   <li>the whole body has not arrived {@code timeout} after the request's head did;
 *   <li>after a grace of {@value #GRACE_SECONDS} s, fewer than {@code minRate} bytes a second have
 *       arrived on average since the head did.
 * </ul>
 *
 * <p>A read waiting for bytes that do not come is woken by a timer at the moment the next bound
 * would be passed, so the thread is freed then, not at the connection's idle timeout. A request
 * without a body is passed on unwrapped.
 */
final class BodyDeadline extends Handler.Wrapper {
  static final int GRACE_SECONDS = 2;
  private static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(GRACE_SECONDS);

  private final long timeoutNanos;
  private final long minRate;

  /**
   * @param timeout the longest a body may take to arrive, counted from the request's head
   * @param minRate the least average rate, in bytes a second, after the grace; 0 for none
   */
  BodyDeadline(Duration timeout, long minRate) {
    this.timeoutNanos = timeout.toNanos();
    this.minRate = minRate;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    boolean body =
        request.getLength() > 0
            || (request.getLength() < 0
                && request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING));
    return super.handle(body ? new Timed(request) : request, response, callback);
  }

  /** A request whose content reads fail once its body is too late or too slow. */
  private final class Timed extends Request.Wrapper {
    private final long start = NanoTime.now();
    private final AtomicReference<Runnable> waiting = new AtomicReference<>();
    private volatile Content.Chunk failure;
    private volatile long received;

    Timed(Request request) {
      super(request);
    }

    /** The time the body may take so far: what it has sent buys time at the minimum rate. */
    private long allowedNanos() {
      long earned = minRate > 0 ? received * 1_000_000_000L / minRate : Long.MAX_VALUE;
      return Math.min(timeoutNanos, Math.max(GRACE_NANOS, earned));
    }

    private long remainingNanos() {
      return allowedNanos() - NanoTime.since(start);
    }

    private Content.Chunk fail() {
      Content.Chunk f = failure;
      if (f == null) {
        f =
            Content.Chunk.from(
                new TimeoutException(
                    "the request body did not arrive in time (all of it within "
                        + TimeUnit.NANOSECONDS.toSeconds(timeoutNanos)
                        + " s, at least "
                        + minRate
                        + " bytes a second after the first "
                        + GRACE_SECONDS
                        + " s)"));
        failure = f;
      }
      return f;
    }

    @Override
    public Content.Chunk read() {
      Content.Chunk f = failure;
      if (f != null) {
        return f;
      }
      Content.Chunk chunk = super.read();
      if (chunk == null || Content.Chunk.isFailure(chunk)) {
        return chunk;
      }
      received += chunk.remaining();
      if (!chunk.isLast() && remainingNanos() <= 0) {
        chunk.release();
        return fail();
      }
      return chunk;
    }

    @Override
    public void demand(Runnable demandCallback) {
      long remaining = failure != null ? 0 : remainingNanos();
      if (remaining <= 0) {
        fail();
        demandCallback.run();
        return;
      }
      waiting.set(demandCallback);
      Scheduler.Task timer =
          getComponents()
              .getScheduler()
              .schedule(
                  () -> {
                    Runnable r = waiting.getAndSet(null);
                    if (r != null) {
                      fail();
                      r.run();
                    }
                  },
                  remaining,
                  TimeUnit.NANOSECONDS);
      super.demand(
          () -> {
            Runnable r = waiting.getAndSet(null);
            if (r != null) {
              timer.cancel();
              r.run();
            }
          });
    }
  }
}
