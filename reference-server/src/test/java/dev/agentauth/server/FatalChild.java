package dev.agentauth.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * {@link ServerMain} as a child process (see {@code ServerMainIT}) with one more thread, which
 * throws an {@link OutOfMemoryError} when a line arrives on stdin: what the jar does with a fatal
 * error in a thread of its own.
 */
public final class FatalChild {
  static final String TRIGGER_THREAD = "test-oom-trigger";

  private FatalChild() {}

  public static void main(String[] args) {
    Thread trigger =
        new Thread(
            () -> {
              try {
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
                    .readLine();
              } catch (IOException e) {
                return;
              }
              throw new OutOfMemoryError("simulated by the test");
            },
            TRIGGER_THREAD);
    trigger.setDaemon(true);
    trigger.start();
    ServerMain.main(args);
  }
}
