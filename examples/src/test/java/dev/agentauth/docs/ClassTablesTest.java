package dev.agentauth.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The "where the classes are" tables of the docs ({@code | Package | Classes |}): every class a row
 * names is in that row's package.
 */
class ClassTablesTest {

  private static final Pattern CODE = Pattern.compile("`([^`]+)`");

  @Test
  void everyClassOfAPackageTableIsInItsPackage() throws IOException {
    List<String> problems = new ArrayList<>();
    int classes = 0;
    int tables = 0;
    for (String doc : List.of("docs/client.md", "docs/mcp.md")) {
      Path path = DocSnippetsTest.ROOT.resolve(doc);
      List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
      boolean inTable = false;
      for (String line : lines) {
        if (line.startsWith("| Package | Classes |")) {
          inTable = true;
          tables++;
          continue;
        }
        if (!inTable || line.startsWith("|---")) {
          continue;
        }
        if (!line.startsWith("|")) {
          inTable = false;
          continue;
        }
        String[] cells = line.split("\\|");
        Matcher pkg = CODE.matcher(cells[1]);
        assertThat(pkg.find()).as(doc + ": " + line).isTrue();
        Matcher names = CODE.matcher(cells[2]);
        while (names.find()) {
          String name = names.group(1);
          if (name.startsWith("agentauth-")) {
            continue; // an artifact, not a class
          }
          classes++;
          String binary = pkg.group(1) + "." + name.replace('.', '$');
          try {
            Class.forName(binary, false, getClass().getClassLoader());
          } catch (ClassNotFoundException e) {
            problems.add(doc + ": no class " + binary);
          }
        }
      }
    }
    assertThat(tables).isEqualTo(2);
    assertThat(classes).isGreaterThan(60);
    assertThat(problems).isEmpty();
  }
}
