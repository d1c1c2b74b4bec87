package dev.agentauth.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.DocTrees;
import com.sun.source.util.JavacTask;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.mcp.AgentAuthToolGuard;
import dev.agentauth.server.AgentAuthServer;
import dev.agentauth.verifier.ReceiptVerifier;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import javax.lang.model.element.Modifier;
import javax.tools.Diagnostic;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** What every library module of the build promises: parameter names, documented enum constants. */
class LibraryConventionsTest {

  /** The modules published as libraries. */
  static final List<String> LIBRARIES =
      List.of(
          "sdk-core",
          "sdk-verifier",
          "sdk-guard",
          "sdk-mcp-middleware",
          "sdk-spring-ai",
          "sdk-spring-ai-test",
          "sdk-langchain4j",
          "reference-server");

  /**
   * The modules that build a runnable application, not a library: the {@code agentauth} command
   * line. An application is used as a jar, never as a dependency, so the BOM does not manage it and
   * it ships no sources or Javadoc jars.
   */
  static final List<String> APPLICATIONS = List.of("cli");

  @Test
  void applicationsAreBuiltButNotInTheBom() throws Exception {
    String parent =
        Files.readString(DocSnippetsTest.ROOT.resolve("pom.xml"), StandardCharsets.UTF_8);
    String bom =
        Files.readString(DocSnippetsTest.ROOT.resolve("bom/pom.xml"), StandardCharsets.UTF_8);
    for (String module : APPLICATIONS) {
      assertThat(parent)
          .as("the parent builds " + module)
          .contains("<module>" + module + "</module>");
      assertThat(LIBRARIES).doesNotContain(module);
      Document pom =
          DocumentBuilderFactory.newInstance()
              .newDocumentBuilder()
              .parse(DocSnippetsTest.ROOT.resolve(module + "/pom.xml").toFile());
      String artifactId = directChild(pom.getDocumentElement(), "artifactId");
      assertThat(bom).as("the BOM manages no application").doesNotContain(artifactId);
    }
  }

  private static String directChild(Element parent, String tag) {
    NodeList children = parent.getChildNodes();
    for (int i = 0; i < children.getLength(); i++) {
      if (children.item(i) instanceof Element e && e.getTagName().equals(tag)) {
        return e.getTextContent().strip();
      }
    }
    throw new AssertionError("no <" + tag + "> in " + parent.getTagName());
  }

  @Test
  void publicMethodsKeepTheirParameterNames() throws NoSuchMethodException {
    List<Method> methods =
        List.of(
            AgentAuthClient.Builder.class.getMethod("apiKey", String.class),
            ReceiptVerifier.class.getMethod("verify", String.class),
            AgentAuthToolGuard.Builder.class.getMethod("client", AgentAuthClient.class),
            AgentAuthServer.Builder.class.getMethod("port", int.class));

    assertThat(methods)
        .extracting(m -> m.getParameters()[0])
        .allMatch(Parameter::isNamePresent)
        .extracting(Parameter::getName)
        .containsExactly("apiKey", "json", "client", "port");
  }

  @Test
  void everyPublicEnumConstantHasAJavadocComment() throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    List<String> undocumented = new ArrayList<>();
    int constants = 0;
    try (StandardJavaFileManager files =
        javac.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
      JavacTask task =
          (JavacTask)
              javac.getTask(
                  null,
                  files,
                  diagnostic -> {},
                  List.of("-proc:none"),
                  null,
                  files.getJavaFileObjectsFromPaths(librarySources()));
      DocTrees trees = DocTrees.instance(task);
      SourcePositions positions = trees.getSourcePositions();
      int[] count = {0};
      for (CompilationUnitTree unit : task.parse()) {
        new TreePathScanner<Void, Void>() {
          @Override
          public Void visitClass(ClassTree node, Void unused) {
            if (node.getKind() == Tree.Kind.ENUM && isPublic(getCurrentPath())) {
              for (Tree member : node.getMembers()) {
                if (member instanceof VariableTree v && isEnumConstant(unit, v, positions)) {
                  count[0]++;
                  TreePath path = new TreePath(getCurrentPath(), member);
                  if (trees.getDocCommentTree(path) == null) {
                    undocumented.add(
                        Path.of(unit.getSourceFile().toUri()).getFileName()
                            + ": "
                            + node.getSimpleName()
                            + "."
                            + v.getName());
                  }
                }
              }
            }
            return super.visitClass(node, unused);
          }
        }.scan(unit, null);
      }
      constants = count[0];
    }

    assertThat(constants).as("public enum constants found").isGreaterThan(100);
    assertThat(undocumented).as("public enum constants without a Javadoc comment").isEmpty();
  }

  /** Whether the class at {@code path} and every class around it is public (or in an interface). */
  private static boolean isPublic(TreePath path) {
    for (TreePath p = path; p != null; p = p.getParentPath()) {
      if (p.getLeaf() instanceof ClassTree c) {
        boolean inInterface =
            p.getParentPath().getLeaf() instanceof ClassTree outer
                && outer.getKind() == Tree.Kind.INTERFACE;
        if (!c.getModifiers().getFlags().contains(Modifier.PUBLIC) && !inInterface) {
          return false;
        }
      }
    }
    String pkg = String.valueOf(path.getCompilationUnit().getPackageName());
    return !pkg.contains(".internal");
  }

  /** An enum constant: implicitly public static final, with no modifiers written. */
  private static boolean isEnumConstant(
      CompilationUnitTree unit, VariableTree v, SourcePositions positions) {
    return v.getModifiers().getFlags().containsAll(Set.of(Modifier.PUBLIC, Modifier.STATIC))
        && positions.getStartPosition(unit, v.getModifiers()) == Diagnostic.NOPOS;
  }

  private static List<Path> librarySources() throws IOException {
    List<Path> sources = new ArrayList<>();
    for (String module : LIBRARIES) {
      try (Stream<Path> walk =
          Files.walk(DocSnippetsTest.ROOT.resolve(module + "/src/main/java"))) {
        walk.filter(p -> p.toString().endsWith(".java")).forEach(sources::add);
      }
    }
    return sources;
  }

  @Test
  void theBomManagesOurEightArtifactsAndTheMcpSdksFourAsInstallMdSays() throws Exception {
    Document bom =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(DocSnippetsTest.ROOT.resolve("bom/pom.xml").toFile());
    List<String> managed = new ArrayList<>();
    NodeList dependencies = bom.getElementsByTagName("dependency");
    for (int i = 0; i < dependencies.getLength(); i++) {
      Element d = (Element) dependencies.item(i);
      managed.add(text(d, "groupId") + ":" + text(d, "artifactId"));
    }
    String install =
        Files.readString(DocSnippetsTest.ROOT.resolve("docs/install.md"), StandardCharsets.UTF_8)
            .replaceAll("\\s+", " ");

    assertThat(managed)
        .containsExactlyInAnyOrder(
            "dev.agentauth:agentauth-sdk-core",
            "dev.agentauth:agentauth-sdk-verifier",
            "dev.agentauth:agentauth-guard",
            "dev.agentauth:agentauth-sdk-mcp-middleware",
            "dev.agentauth:agentauth-spring-boot-starter",
            "dev.agentauth:agentauth-spring-boot-test",
            "dev.agentauth:agentauth-langchain4j",
            "dev.agentauth:agentauth-reference-server",
            "io.modelcontextprotocol.sdk:mcp-core",
            "io.modelcontextprotocol.sdk:mcp",
            "io.modelcontextprotocol.sdk:mcp-json-jackson2",
            "io.modelcontextprotocol.sdk:mcp-json-jackson3");
    assertThat(install).contains("The BOM pins twelve artifacts: agentauth's own eight");
    for (String artifact : managed) {
      assertThat(install).contains("`" + artifact.substring(artifact.indexOf(':') + 1) + "`");
    }
  }

  private static String text(Element parent, String tag) {
    return parent.getElementsByTagName(tag).item(0).getTextContent().strip();
  }

  @Test
  void everyLibraryShipsSourcesAndJavadocJars() throws IOException {
    for (String module : LIBRARIES) {
      String pom =
          Files.readString(
              DocSnippetsTest.ROOT.resolve(module + "/pom.xml"), StandardCharsets.UTF_8);
      assertThat(pom)
          .as(module)
          .contains("<artifactId>maven-source-plugin</artifactId>")
          .contains("<artifactId>maven-javadoc-plugin</artifactId>");
    }
  }
}
