package dev.agentauth.server.fatal;

/**
 * Which errors are fatal, and how code that survives them (the store's writer, the signer, the HTTP
 * layer) reports them.
 *
 * <p>Fatal means a {@link VirtualMachineError} other than {@link StackOverflowError}: an {@link
 * OutOfMemoryError}, an {@link InternalError} or an {@link UnknownError}. After one of these any
 * thread may have lost an allocation half-way, so the process cannot be trusted to go on. A stack
 * overflow unwinds its own thread only and is handled like any other failure of the request that
 * caused it: making it fatal would let one request that recurses too deeply stop the server for
 * everyone.
 */
public final class FatalErrors {
  private FatalErrors() {}

  /** Whether {@code t} is fatal (see the class comment). */
  public static boolean isFatal(Throwable t) {
    return t instanceof VirtualMachineError && !(t instanceof StackOverflowError);
  }

  /**
   * Hands a fatal {@code t} that the calling thread caught, and survives, to the {@link
   * FatalErrorPolicy} installed as the default uncaught-exception handler, if any (the jar installs
   * one; an embedding application only when it asks). Does nothing for other throwables, or when no
   * policy is installed: the caller logs and goes on.
   */
  public static void report(Throwable t) {
    if (isFatal(t)
        && Thread.getDefaultUncaughtExceptionHandler() instanceof FatalErrorPolicy policy) {
      policy.uncaughtException(Thread.currentThread(), t);
    }
  }
}
