package dev.agentauth.client.internal;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The SDK version, read from {@code agentauth-version.properties} (filtered with the Maven project
 * version at build time). Not part of the public API.
 */
public final class Version {
  private static final String VERSION = load();

  private Version() {}

  /** Returns the SDK version, e.g. {@code 0.1.0}, or {@code unknown}. */
  public static String sdk() {
    return VERSION;
  }

  /** Returns {@code agentauth-java/<sdk version> (Java <runtime version>)}. */
  public static String userAgent() {
    return "agentauth-java/" + VERSION + " (Java " + System.getProperty("java.version") + ")";
  }

  private static String load() {
    try (InputStream in = Version.class.getResourceAsStream("agentauth-version.properties")) {
      if (in == null) {
        return "unknown";
      }
      Properties p = new Properties();
      p.load(in);
      String v = p.getProperty("version", "unknown").trim();
      return v.isEmpty() || v.startsWith("${") ? "unknown" : v;
    } catch (IOException e) {
      return "unknown";
    }
  }
}
