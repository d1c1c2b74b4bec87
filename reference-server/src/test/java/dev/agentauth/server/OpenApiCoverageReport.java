package dev.agentauth.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The OpenAPI coverage of one build: the union of what every test JVM of the build saw (surefire's,
 * and failsafe's run on each store), read from the files {@link OpenApiContract#writeReport} leaves
 * under {@code target/openapi-coverage/<build>/}. The build id comes from the system property
 * {@code openapi.coverage.build} (the pom passes Maven's build timestamp to every test JVM), so a
 * run never mixes with files an earlier build left in {@code target}.
 */
final class OpenApiCoverageReport {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final List<String> documented;

  /** Pair → store → answers seen. */
  private final Map<String, Map<String, Long>> seen;

  private final Set<String> stores;
  private final List<String> violations;

  private OpenApiCoverageReport(
      List<String> documented,
      Map<String, Map<String, Long>> seen,
      Set<String> stores,
      List<String> violations) {
    this.documented = documented;
    this.seen = seen;
    this.stores = stores;
    this.violations = violations;
  }

  /** Where the JVMs of this build write their counts. */
  static Path runsDir(Path target) {
    String build = System.getProperty("openapi.coverage.build", "");
    if (build.isBlank() || build.startsWith("${")) {
      build = "adhoc";
    }
    return target.resolve("openapi-coverage").resolve(build.replaceAll("[^A-Za-z0-9_.-]", "_"));
  }

  /** The union of every run file in {@code runs}, against the document's pairs. */
  static OpenApiCoverageReport read(Path runs, List<String> documented) {
    Map<String, Map<String, Long>> seen = new TreeMap<>();
    Set<String> stores = new TreeSet<>();
    List<String> violations = new ArrayList<>();
    if (Files.isDirectory(runs)) {
      try (Stream<Path> files = Files.list(runs)) {
        for (Path f : files.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
          JsonNode run = MAPPER.readTree(f.toFile());
          String store = run.path("store").asText("memory");
          stores.add(store);
          run.path("seen")
              .fields()
              .forEachRemaining(
                  e ->
                      seen.computeIfAbsent(e.getKey(), k -> new TreeMap<>())
                          .merge(store, e.getValue().asLong(), Long::sum));
          run.path("violations").forEach(v -> violations.add(store + ": " + v.asText()));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return new OpenApiCoverageReport(List.copyOf(documented), seen, stores, violations);
  }

  /** The stores whose runs wrote counts. */
  Set<String> stores() {
    return stores;
  }

  /** Documented pairs no run exercised. */
  List<String> missing() {
    return documented.stream().filter(p -> !seen.containsKey(p)).toList();
  }

  /** Documented pairs no run on {@code store} exercised. */
  List<String> missingOn(String store) {
    return documented.stream()
        .filter(p -> !seen.getOrDefault(p, Map.of()).containsKey(store))
        .toList();
  }

  List<String> violations() {
    return violations;
  }

  String markdown() {
    long exercised = documented.size() - missing().size();
    StringBuilder md = new StringBuilder("# OpenAPI coverage\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "%d of %d documented operation × status pairs exercised (%.0f%%) by the runs on %s;"
                + " %d contract violations.%n%n",
            exercised,
            documented.size(),
            documented.isEmpty() ? 0.0 : 100.0 * exercised / documented.size(),
            String.join(", ", stores),
            violations.size()));
    md.append("| operation | status |");
    stores.forEach(s -> md.append(' ').append(s).append(" |"));
    md.append("\n|---|---|");
    stores.forEach(s -> md.append("---|"));
    md.append('\n');
    for (String pair : documented) {
      int split = pair.lastIndexOf(' ');
      Map<String, Long> byStore = seen.getOrDefault(pair, Map.of());
      md.append("| `").append(pair, 0, split).append("` | ").append(pair.substring(split + 1));
      md.append(" |");
      for (String s : stores) {
        Long n = byStore.get(s);
        md.append(' ').append(n == null ? (byStore.isEmpty() ? "**never**" : "–") : n).append(" |");
      }
      md.append('\n');
    }
    Map<String, Long> other = new TreeMap<>();
    seen.forEach(
        (pair, byStore) -> {
          if (!documented.contains(pair)) {
            other.put(pair, byStore.values().stream().mapToLong(Long::longValue).sum());
          }
        });
    if (!other.isEmpty()) {
      md.append("\nOther answers (transport-level `default` problems, missing routes):\n\n");
      other.forEach((k, v) -> md.append("- `").append(k).append("`: ").append(v).append('\n'));
    }
    if (!violations.isEmpty()) {
      md.append("\nViolations:\n\n");
      violations.forEach(v -> md.append("- ").append(v).append('\n'));
    }
    return md.toString();
  }
}
