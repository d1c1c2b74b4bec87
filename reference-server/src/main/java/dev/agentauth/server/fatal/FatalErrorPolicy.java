package dev.agentauth.server.fatal;

import java.io.PrintStream;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends the process at once when a {@linkplain FatalErrors#isFatal fatal error} occurs anywhere: the
 * equivalent of {@code -XX:+ExitOnOutOfMemoryError}, which a jar cannot set for itself. Installed
 * as the default uncaught-exception handler, it sees fatal errors that end a thread; threads that
 * catch everything to stay alive (the store's writer, the signer, Jetty's request threads) pass
 * them on with {@link FatalErrors#report}.
 *
 * <p>On a fatal error it prints one line naming the error and the thread to its error stream and
 * halts with {@link #EXIT_STATUS} without running shutdown hooks: a drain on a JVM that ran out of
 * memory could hang, and every answered request is already committed. Other uncaught exceptions are
 * logged and end only their thread, as without a handler.
 *
 * <pre>{@code
 * FatalErrorPolicy.halting().install(); // first thing in main()
 * }</pre>
 */
public final class FatalErrorPolicy implements Thread.UncaughtExceptionHandler {
  private static final Logger log = LoggerFactory.getLogger(FatalErrorPolicy.class);

  /** The exit status after a fatal error; the JVM's own {@code ExitOnOutOfMemoryError} uses 3. */
  public static final int EXIT_STATUS = 3;

  private final IntConsumer halt;
  private final PrintStream err;
  private final AtomicBoolean halting = new AtomicBoolean();

  /**
   * @param halt ends the process with the status given ({@code Runtime.getRuntime()::halt}; tests
   *     pass a recorder)
   * @param err where the one-line reason is printed
   */
  public FatalErrorPolicy(IntConsumer halt, PrintStream err) {
    this.halt = Objects.requireNonNull(halt, "halt");
    this.err = Objects.requireNonNull(err, "err");
  }

  /** A policy that halts the JVM and prints to {@code System.err}. */
  public static FatalErrorPolicy halting() {
    return new FatalErrorPolicy(status -> Runtime.getRuntime().halt(status), System.err);
  }

  /** Makes this the JVM's default uncaught-exception handler. */
  public FatalErrorPolicy install() {
    Thread.setDefaultUncaughtExceptionHandler(this);
    return this;
  }

  @Override
  public void uncaughtException(Thread thread, Throwable error) {
    if (!FatalErrors.isFatal(error)) {
      log.error("uncaught exception in thread {}", thread.getName(), error);
      return;
    }
    if (!halting.compareAndSet(false, true)) {
      return; // another thread is halting already
    }
    try {
      // Little memory may be left: print the parts without building one string first.
      err.print("agentauth-server: FATAL: ");
      err.print(error.getClass().getName());
      err.print(" in thread ");
      err.print(thread.getName());
      err.print(": ");
      err.print(error.getMessage());
      err.print("; exiting with status ");
      err.print(EXIT_STATUS);
      err.println(" without draining");
      err.flush();
    } catch (Throwable ignored) {
      // halting matters more than saying why
    } finally {
      halt.accept(EXIT_STATUS);
    }
  }
}
