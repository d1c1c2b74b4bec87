package dev.agentauth.mcp;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What is written to {@code System.err} while open: where slf4j-simple, this module's test logging
 * binding, writes the guard's log lines (it looks {@code System.err} up on every line).
 */
final class CapturedStderr implements AutoCloseable {
  private final PrintStream original = System.err;
  private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();

  private CapturedStderr() {
    System.setErr(new PrintStream(buffer, true, StandardCharsets.UTF_8));
  }

  static CapturedStderr capture() {
    return new CapturedStderr();
  }

  String text() {
    return buffer.toString(StandardCharsets.UTF_8);
  }

  /** Returns the lines logged by the guard's logger. */
  List<String> guardLines() {
    return text().lines().filter(l -> l.contains(AgentAuthToolGuard.class.getName())).toList();
  }

  @Override
  public void close() {
    System.setErr(original);
    original.print(text());
  }
}
