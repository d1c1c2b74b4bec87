package dev.agentauth.spring.autoconfigure;

import dev.agentauth.client.internal.FallbackLog;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The records of one logger while open. The client logs through {@link System.Logger}, which the
 * JDK hands to {@code java.util.logging}: a handler on the logger of the same name sees each record
 * with its level. The records are kept from the console while captured.
 */
final class CapturedLog implements AutoCloseable {
  private final Logger logger;
  private final List<LogRecord> records = new CopyOnWriteArrayList<>();
  private final Handler handler =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          records.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  private CapturedLog(String name) {
    logger = Logger.getLogger(name);
    handler.setLevel(Level.ALL);
    logger.addHandler(handler);
    logger.setUseParentHandlers(false);
  }

  /** Captures the client's fallback lines. */
  static CapturedLog fallbacks() {
    return new CapturedLog(FallbackLog.LOGGER_NAME);
  }

  /** Returns the messages logged at WARNING, in order. */
  List<String> warnings() {
    return records.stream()
        .filter(r -> r.getLevel() == Level.WARNING)
        .map(LogRecord::getMessage)
        .toList();
  }

  /** Returns every record, in order. */
  List<LogRecord> records() {
    return List.copyOf(records);
  }

  @Override
  public void close() {
    logger.removeHandler(handler);
    logger.setUseParentHandlers(true);
  }
}
