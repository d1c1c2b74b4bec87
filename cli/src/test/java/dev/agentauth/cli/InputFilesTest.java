package dev.agentauth.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.model.BundleRequest;
import dev.agentauth.model.CreateAuthorizationRequest;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

/** Request files and option values are checked locally, with the path of what is wrong. */
class InputFilesTest {

  static CreateAuthorizationRequest grant(String text) {
    ByteArrayInputStream in = new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    return InputFiles.bind("-", "", InputFiles.read("-", in), CreateAuthorizationRequest.class);
  }

  @Test
  void yamlAndJsonGiveTheSameRequest() {
    CreateAuthorizationRequest yaml =
        grant("user_id: u\nagent_id: a\nscopes: [{name: s, constraints: {max_per_day: 3}}]\n");
    CreateAuthorizationRequest json =
        grant(
            "{\"user_id\":\"u\",\"agent_id\":\"a\","
                + "\"scopes\":[{\"name\":\"s\",\"constraints\":{\"max_per_day\":3}}]}");

    assertThat(yaml).isEqualTo(json);
    assertThat(yaml.scopes().get(0).constraints().maxPerDay()).isEqualTo(3L);
  }

  @Test
  void anUnknownFieldNamesItsFullPath() {
    assertThatThrownBy(
            () ->
                grant(
                    "user_id: u\nscopes:\n  - name: a\n  - name: b\n    constraints:\n"
                        + "      max_per_dya: 20\n"))
        .isInstanceOf(CliException.class)
        .hasMessageStartingWith("-: scopes[1].constraints.max_per_dya: unknown field")
        .satisfies(e -> assertThat(((CliException) e).exitCode()).isEqualTo(2));
  }

  @Test
  void aDuplicateKeyIsRefusedRatherThanOneValueSilentlyWinning() {
    assertThatThrownBy(() -> grant("user_id: u\nuser_id: v\n"))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("user_id");
    assertThatThrownBy(() -> grant("{\"user_id\": \"u\", \"user_id\": \"v\"}"))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("user_id");
  }

  @Test
  void aListElementsPathStartsWithItsIndex() {
    ByteArrayInputStream in =
        new ByteArrayInputStream("[{id: a}, {id: b, agent: x}]".getBytes(StandardCharsets.UTF_8));
    var node = InputFiles.read("-", in);

    assertThatThrownBy(() -> InputFiles.bind("b.yaml", "[1]", node.get(1), BundleRequest.class))
        .hasMessageStartingWith("b.yaml: [1].agent: unknown field");
  }

  @Test
  void durationsAreShortOrIsoAndPositive() {
    assertThat(Durations.parse("30s")).isEqualTo(Duration.ofSeconds(30));
    assertThat(Durations.parse("7d")).isEqualTo(Duration.ofDays(7));
    assertThat(Durations.parse("250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(Durations.parse("PT2H")).isEqualTo(Duration.ofHours(2));
    assertThatThrownBy(() -> Durations.parse("0s")).isInstanceOf(TypeConversionException.class);
    assertThatThrownBy(() -> Durations.parse("soon"))
        .isInstanceOf(TypeConversionException.class)
        .hasMessageContaining("30s, 15m, 12h, 7d");
  }
}
