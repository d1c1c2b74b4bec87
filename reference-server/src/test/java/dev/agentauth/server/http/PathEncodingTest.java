package dev.agentauth.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PathEncodingTest {
  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "/v1/authorizations/auth_1, true",
    "/v1/authorizations/a%20b, true",
    "/v1/authorizations/%F0%9F%98%80, true",
    "/v1/escalations/G;q=%2F, true",
    "/v1/authorizations/%zz, false",
    "/v1/authorizations/%u00e9, false",
    "/v1/escalations/G;q%xU, false",
    "/v1/escalations/a%4, false",
    "/v1/escalations/a%, false",
  })
  void everyPercentStartsATwoHexDigitEscape(String path, boolean wellFormed) {
    assertThat(PathEncoding.wellFormed(path)).isEqualTo(wellFormed);
  }
}
