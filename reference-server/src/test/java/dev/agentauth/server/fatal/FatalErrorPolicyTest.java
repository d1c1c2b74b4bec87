package dev.agentauth.server.fatal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Which errors end the process, and that the policy halts (here into a recorder) once. */
class FatalErrorPolicyTest {
  private final List<Integer> halted = new CopyOnWriteArrayList<>();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private final FatalErrorPolicy policy =
      new FatalErrorPolicy(halted::add, new PrintStream(err, true, StandardCharsets.UTF_8));
  private Thread.UncaughtExceptionHandler previous;

  @BeforeEach
  void rememberHandler() {
    previous = Thread.getDefaultUncaughtExceptionHandler();
  }

  @AfterEach
  void restoreHandler() {
    Thread.setDefaultUncaughtExceptionHandler(previous);
  }

  @Test
  void outOfMemoryErrorHaltsWithStatus3NamingTheErrorAndTheThread() {
    policy.uncaughtException(Thread.currentThread(), new OutOfMemoryError("Java heap space"));
    assertThat(halted).containsExactly(3);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("FATAL")
        .contains("java.lang.OutOfMemoryError")
        .contains("Java heap space")
        .contains(Thread.currentThread().getName());
  }

  @Test
  void everyVirtualMachineErrorButStackOverflowIsFatal() {
    assertThat(FatalErrors.isFatal(new OutOfMemoryError())).isTrue();
    assertThat(FatalErrors.isFatal(new InternalError())).isTrue();
    assertThat(FatalErrors.isFatal(new UnknownError())).isTrue();
    assertThat(FatalErrors.isFatal(new StackOverflowError())).isFalse();
    assertThat(FatalErrors.isFatal(new AssertionError())).isFalse();
    assertThat(FatalErrors.isFatal(new IllegalStateException())).isFalse();
  }

  @Test
  void otherUncaughtThrowablesDoNotHalt() {
    policy.uncaughtException(Thread.currentThread(), new IllegalStateException("boom"));
    policy.uncaughtException(Thread.currentThread(), new StackOverflowError());
    assertThat(halted).isEmpty();
  }

  @Test
  void aFatalErrorEndingAThreadHaltsThroughTheDefaultHandler() throws InterruptedException {
    policy.install();
    Thread t =
        new Thread(
            () -> {
              throw new OutOfMemoryError("simulated");
            },
            "doomed");
    t.start();
    t.join();
    assertThat(halted).containsExactly(3);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("doomed");
  }

  @Test
  void aReportedFatalErrorHaltsOnlyWhenThePolicyIsInstalled() {
    Thread.setDefaultUncaughtExceptionHandler(null);
    FatalErrors.report(new OutOfMemoryError("simulated"));
    assertThat(halted).isEmpty();

    policy.install();
    FatalErrors.report(new IllegalStateException("not fatal"));
    assertThat(halted).isEmpty();
    FatalErrors.report(new OutOfMemoryError("simulated"));
    FatalErrors.report(new OutOfMemoryError("again"));
    assertThat(halted).as("halts once").containsExactly(3);
  }
}
