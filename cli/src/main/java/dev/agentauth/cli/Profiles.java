package dev.agentauth.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The saved profiles: {@code config.json} in the configuration directory holds, per profile, the
 * base URL and a <em>reference</em> to the API key (a file path or an environment variable name); a
 * key given on standard input is kept apart in {@code credentials.json}. Both files are written
 * with mode 0600 (directory 0700) where the file system has POSIX permissions.
 *
 * <pre>
 * {"profiles": {"default": {"base_url": "https://...", "api_key_file": "/home/me/.agentauth-key"}}}
 * </pre>
 */
final class Profiles {
  static final String CONFIG_FILE = "config.json";
  static final String CREDENTIALS_FILE = "credentials.json";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path dir;

  Profiles(Path dir) {
    this.dir = dir;
  }

  Path configFile() {
    return dir.resolve(CONFIG_FILE);
  }

  Path credentialsFile() {
    return dir.resolve(CREDENTIALS_FILE);
  }

  /**
   * One profile. Exactly one of {@code apiKeyFile}, {@code apiKeyEnv} and {@code apiKeyStored} is
   * set.
   */
  record Profile(String baseUrl, String apiKeyFile, String apiKeyEnv, boolean apiKeyStored) {}

  /** Returns the profile {@code name}, or null. */
  Profile get(String name) {
    JsonNode p = read(configFile()).path("profiles").path(name);
    if (!p.isObject()) {
      return null;
    }
    return new Profile(
        text(p, "base_url"),
        text(p, "api_key_file"),
        text(p, "api_key_env"),
        p.path("api_key_stored").asBoolean(false));
  }

  /** Saves {@code profile} as {@code name}, and the key in the credentials file when given. */
  void put(String name, Profile profile, String storedKey) {
    ObjectNode config = read(configFile());
    ObjectNode profiles =
        config.path("profiles").isObject()
            ? (ObjectNode) config.get("profiles")
            : config.putObject("profiles");
    ObjectNode p = profiles.putObject(name);
    p.put("base_url", profile.baseUrl());
    if (profile.apiKeyFile() != null) {
      p.put("api_key_file", profile.apiKeyFile());
    }
    if (profile.apiKeyEnv() != null) {
      p.put("api_key_env", profile.apiKeyEnv());
    }
    if (profile.apiKeyStored()) {
      p.put("api_key_stored", true);
    }
    ObjectNode credentials = read(credentialsFile());
    boolean hadKey = credentials.has(name);
    if (storedKey != null) {
      credentials.put(name, storedKey);
      writePrivate(credentialsFile(), credentials);
    } else if (hadKey) {
      credentials.remove(name);
      writePrivate(credentialsFile(), credentials);
    }
    writePrivate(configFile(), config);
  }

  /**
   * Reads the API key of {@code profile}.
   *
   * @throws CliException (usage) when the referenced file or variable holds no key
   */
  String apiKey(String name, Profile profile, Cli cli) {
    if (profile.baseUrl() == null) {
      throw CliException.usage("profile " + name + " in " + configFile() + " has no base_url");
    }
    if (profile.apiKeyFile() != null) {
      try {
        String key =
            Files.readString(Path.of(profile.apiKeyFile()), StandardCharsets.UTF_8).strip();
        if (key.isEmpty()) {
          throw CliException.usage(
              "profile " + name + ": the API key file " + profile.apiKeyFile() + " is empty");
        }
        return key;
      } catch (IOException e) {
        throw CliException.usage(
            "profile "
                + name
                + ": cannot read the API key file "
                + profile.apiKeyFile()
                + " ("
                + e.getClass().getSimpleName()
                + ")");
      }
    }
    if (profile.apiKeyEnv() != null) {
      String key = cli.env(profile.apiKeyEnv());
      if (key == null) {
        throw CliException.usage(
            "profile "
                + name
                + ": the environment variable "
                + profile.apiKeyEnv()
                + " holding its API key is not set");
      }
      return key.strip();
    }
    if (profile.apiKeyStored()) {
      String key = text(read(credentialsFile()), name);
      if (key == null) {
        throw CliException.usage(
            "profile " + name + ": no API key in " + credentialsFile() + "; run 'agentauth login'");
      }
      return key;
    }
    throw CliException.usage("profile " + name + " has no API key; run 'agentauth login'");
  }

  private static String text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v == null || !v.isTextual() ? null : v.asText();
  }

  private static ObjectNode read(Path file) {
    if (!Files.exists(file)) {
      return JSON.createObjectNode();
    }
    try {
      JsonNode node = JSON.readTree(file.toFile());
      if (node instanceof ObjectNode o) {
        return o;
      }
      throw CliException.usage(file + " is not a JSON object; fix or remove it");
    } catch (IOException e) {
      throw CliException.usage(file + " is not valid JSON; fix or remove it");
    }
  }

  /** Writes {@code content} to {@code file} readable by its owner only, replacing it atomically. */
  private void writePrivate(Path file, JsonNode content) {
    boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    try {
      if (!Files.isDirectory(dir)) {
        if (posix) {
          Files.createDirectories(
              dir,
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } else {
          Files.createDirectories(dir);
        }
      }
      Path tmp =
          posix
              ? Files.createTempFile(
                  dir,
                  ".agentauth",
                  ".tmp",
                  PosixFilePermissions.asFileAttribute(
                      PosixFilePermissions.fromString("rw-------")))
              : Files.createTempFile(dir, ".agentauth", ".tmp");
      try {
        Files.write(tmp, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(content));
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } finally {
        Files.deleteIfExists(tmp);
      }
    } catch (IOException e) {
      throw CliException.failure("cannot write " + file + ": " + e.getMessage());
    }
  }
}
