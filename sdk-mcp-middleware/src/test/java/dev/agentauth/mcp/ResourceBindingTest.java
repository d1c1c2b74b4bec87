package dev.agentauth.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** decisions §19: what one approval covers, as the resource each binding gives a call. */
class ResourceBindingTest {

  /** The unpadded base64url SHA-256 of {@code canonicalJson}, computed here independently. */
  static String digestOf(String canonicalJson) {
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256")
              .digest(canonicalJson.getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(hash);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static ToolCall call(String tool, Map<String, Object> arguments) {
    return new ToolCall(tool, arguments, null, null);
  }

  @Test
  void digestIsTheToolNameAndTheHashOfTheCanonicalArguments() {
    Map<String, Object> args = new LinkedHashMap<>();
    args.put("id", "n1");
    args.put("force", true);
    args.put("n", 3);

    String resource = ResourceBinding.argumentsDigest().resourceFor(call("delete_note", args));

    assertThat(resource)
        .isEqualTo("delete_note:" + digestOf("{\"force\":true,\"id\":\"n1\",\"n\":3}"));
    assertThat(resource).hasSize("delete_note:".length() + 43).doesNotContain("=");
  }

  @Test
  void digestIsStableAcrossArgumentKeyOrder() {
    Map<String, Object> ab = new LinkedHashMap<>();
    ab.put("a", "1");
    ab.put("b", Map.of("y", 2, "x", List.of(1, 2)));
    Map<String, Object> ba = new LinkedHashMap<>();
    ba.put("b", Map.of("x", List.of(1, 2), "y", 2));
    ba.put("a", "1");

    assertThat(ResourceBinding.argumentsDigest().resourceFor(call("t", ab)))
        .isEqualTo(ResourceBinding.argumentsDigest().resourceFor(call("t", ba)));
  }

  @Test
  void digestDiffersForAnyOtherArgumentValueOrTool() {
    ResourceBinding d = ResourceBinding.argumentsDigest();
    String n1 = d.resourceFor(call("delete_note", Map.of("id", "n1")));

    assertThat(d.resourceFor(call("delete_note", Map.of("id", "n2")))).isNotEqualTo(n1);
    assertThat(d.resourceFor(call("archive_note", Map.of("id", "n1")))).isNotEqualTo(n1);
    assertThat(d.resourceFor(call("delete_note", Map.of())))
        .isEqualTo("delete_note:" + digestOf("{}"));
  }

  @Test
  void digestOfArgumentsWithoutACanonicalFormStillTellsCallsApart() {
    ResourceBinding d = ResourceBinding.argumentsDigest();
    String fraction = d.resourceFor(call("pay", Map.of("amount", 1.5)));

    assertThat(fraction).startsWith("pay:");
    assertThat(d.resourceFor(call("pay", Map.of("amount", 1.5)))).isEqualTo(fraction);
    assertThat(d.resourceFor(call("pay", Map.of("amount", 2.5)))).isNotEqualTo(fraction);
    assertThat(d.resourceFor(call("pay", Map.of("amount", "1.5")))).isNotEqualTo(fraction);
  }

  @Test
  void templateFillsPlaceholdersFromTopLevelArguments() {
    ResourceBinding t = ResourceBinding.template("notes:{folder}/{id}");

    assertThat(t.placeholders()).containsExactly("folder", "id");
    assertThat(t.resourceFor(call("x", Map.of("folder", "work", "id", "n-1_a.b~c", "other", 1))))
        .isEqualTo("notes:work/n-1_a.b~c");
    assertThat(t.resourceFor(call("x", Map.of("folder", "work", "id", 42))))
        .isEqualTo("notes:work/42");
  }

  @Test
  void templateValuesArePercentEncodedSoTheyCannotForgeAnotherResource() {
    ResourceBinding t = ResourceBinding.template("notes:{folder}/{id}");

    String a = t.resourceFor(call("x", Map.of("folder", "a/b", "id", "c")));
    String b = t.resourceFor(call("x", Map.of("folder", "a", "id", "b/c")));

    assertThat(a).isEqualTo("notes:a%2Fb/c");
    assertThat(b).isEqualTo("notes:a/b%2Fc");
    assertThat(t.resourceFor(call("x", Map.of("folder", "é*", "id", "%"))))
        .isEqualTo("notes:%C3%A9%2A/%25");
  }

  @Test
  void templateArgumentMissingNullEmptyOrOfAnotherTypeHasNoResource() {
    ResourceBinding t = ResourceBinding.template("notes:{id}");
    Map<String, Object> nullId = new HashMap<>();
    nullId.put("id", null);

    for (Map<String, Object> args :
        List.<Map<String, Object>>of(
            Map.of(),
            nullId,
            Map.of("id", ""),
            Map.of("id", true),
            Map.of("id", 1.5),
            Map.of("id", List.of("n1")),
            Map.of("id", Map.of("n", 1)))) {
      assertThatThrownBy(() -> t.resourceFor(call("delete_note", args)))
          .as("arguments %s", args)
          .isInstanceOfSatisfying(
              ResourceBindingException.class,
              e -> {
                assertThat(e.toolName()).isEqualTo("delete_note");
                assertThat(e.argument()).isEqualTo("id");
              })
          .hasMessageContaining("expected argument \"id\" of tool \"delete_note\"");
    }
  }

  @Test
  void templateResourceLongerThan256CharactersHasNoResource() {
    ResourceBinding t = ResourceBinding.template("notes:{id}");

    assertThatThrownBy(() -> t.resourceFor(call("delete_note", Map.of("id", "x".repeat(251)))))
        .isInstanceOf(ResourceBindingException.class)
        .hasMessageContaining("at most 256 characters, found 257");
  }

  @Test
  void malformedTemplatesAreRejected() {
    for (String bad :
        List.of(
            "",
            "notes",
            "notes:{id",
            "notes:id}",
            "notes:{}",
            "notes:{a b}",
            "{a}{b}",
            "{a}-{b}",
            "{a}%{b}",
            "x".repeat(257))) {
      assertThatThrownBy(() -> ResourceBinding.template(bad))
          .as("template \"%s\"", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .isNotInstanceOf(ResourceBindingException.class)
          .hasMessageContaining("resource template");
    }
    assertThat(ResourceBinding.template("{a}:{b}").placeholders()).containsExactly("a", "b");
  }

  @Test
  void unboundSendsNoResourceAndExtractorIsAnyFunction() {
    assertThat(ResourceBinding.unbound().resourceFor(call("t", Map.of("id", "n1")))).isNull();
    assertThat(ResourceBinding.unbound().placeholders()).isEmpty();
    assertThat(ResourceBinding.argumentsDigest().placeholders()).isEmpty();
    assertThat(
            ResourceBinding.extractor(c -> "box:" + c.stringArgument("to"))
                .resourceFor(call("t", Map.of("to", "ada"))))
        .isEqualTo("box:ada");
  }
}
