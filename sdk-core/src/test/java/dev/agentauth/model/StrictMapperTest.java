package dev.agentauth.model;

import static dev.agentauth.model.WireJson.CLIENT;
import static dev.agentauth.model.WireJson.STRICT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class StrictMapperTest {

  @Test
  void strictRejectsUnknownMemberNamingIt() {
    assertThatThrownBy(
            () ->
                STRICT.readValue(
                    "{\"authorization_id\":\"a\",\"scopes\":[\"x\"],\"scope\":\"typo\"}",
                    CheckRequest.class))
        .isInstanceOfSatisfying(
            UnrecognizedPropertyException.class,
            e -> assertThat(e.getPropertyName()).isEqualTo("scope"));
  }

  @Test
  void strictRejectsUnknownMemberInNestedObject() {
    String json =
        "{\"user_id\":\"u\",\"scopes\":[{\"name\":\"a\",\"constraints\":{\"max_per_dya\":1}}]}";
    assertThatThrownBy(() -> STRICT.readValue(json, CreateAuthorizationRequest.class))
        .isInstanceOfSatisfying(
            UnrecognizedPropertyException.class,
            e -> assertThat(path(e)).isEqualTo("scopes[0].constraints.max_per_dya"));
  }

  @Test
  void clientIgnoresUnknownMembers() throws Exception {
    assertThat(
            CLIENT.readValue(
                "{\"escalation_id\":\"e\",\"status\":\"pending\",\"escalation_to\":null,"
                    + "\"expires_at\":\"2026-11-23T10:00:00.000Z\",\"added_in_v2\":{\"x\":1}}",
                EscalationRef.class))
        .extracting(EscalationRef::escalationId)
        .isEqualTo("e");
  }

  @Test
  void strictRejectsStringForInteger() {
    assertThatThrownBy(
            () -> STRICT.readValue("{\"estimated_cost_micros\":\"5\"}", CheckRequest.class))
        .isInstanceOfSatisfying(
            MismatchedInputException.class,
            e -> assertThat(path(e)).isEqualTo("estimated_cost_micros"));
  }

  @Test
  void clientCoercesStringToInteger() throws Exception {
    assertThat(
            CLIENT
                .readValue("{\"estimated_cost_micros\":\"5\"}", CheckRequest.class)
                .estimatedCostMicros())
        .isEqualTo(5L);
  }

  @Test
  void strictRejectsNumberForString() {
    assertThatThrownBy(() -> STRICT.readValue("{\"authorization_id\":5}", CheckRequest.class))
        .isInstanceOfSatisfying(
            MismatchedInputException.class, e -> assertThat(path(e)).isEqualTo("authorization_id"));
    assertThatThrownBy(() -> STRICT.readValue("{\"scopes\":[\"a\",7]}", CheckRequest.class))
        .isInstanceOfSatisfying(
            MismatchedInputException.class, e -> assertThat(path(e)).isEqualTo("scopes[1]"));
    assertThatThrownBy(() -> STRICT.readValue("{\"resource\":true}", CheckRequest.class))
        .isInstanceOf(MismatchedInputException.class);
    assertThatThrownBy(() -> STRICT.readValue("{\"resource\":1.5}", CheckRequest.class))
        .isInstanceOf(MismatchedInputException.class);
  }

  @Test
  void strictRejectsFractionsAndBooleansForIntegers() {
    for (String value : new String[] {"5.5", "5.0", "1e3", "true", "\"\""}) {
      assertThatThrownBy(
              () ->
                  STRICT.readValue("{\"estimated_cost_micros\":" + value + "}", CheckRequest.class))
          .as(value)
          .isInstanceOf(MismatchedInputException.class);
    }
  }

  @Test
  void strictRejectsIntegersOutsideLongRange() {
    assertThatThrownBy(
            () ->
                STRICT.readValue(
                    "{\"estimated_cost_micros\":9223372036854775808}", CheckRequest.class))
        .isInstanceOf(JsonMappingException.class);
  }

  @Test
  void strictRejectsNumbersAndStringsForBooleans() {
    for (String value : new String[] {"1", "0", "\"true\"", "1.0"}) {
      assertThatThrownBy(
              () -> STRICT.readValue("{\"approved\":" + value + "}", ConfirmationRequest.class))
          .as(value)
          .isInstanceOfSatisfying(
              MismatchedInputException.class, e -> assertThat(path(e)).isEqualTo("approved"));
    }
  }

  @Test
  void strictRejectsScalarWhereArrayOrObjectExpected() {
    for (String json :
        new String[] {
          "{\"scopes\":\"a\"}",
          "{\"scopes\":\"\"}",
          "{\"context\":\"a\"}",
          "{\"context\":\"\"}",
          "{\"context\":[]}"
        }) {
      assertThatThrownBy(() -> STRICT.readValue(json, CheckRequest.class))
          .as(json)
          .isInstanceOf(MismatchedInputException.class);
    }
  }

  @Test
  void strictRejectsEmptyStringForNestedObject() {
    assertThatThrownBy(
            () -> STRICT.readValue("{\"name\":\"s\",\"constraints\":\"\"}", ScopeEntry.class))
        .isInstanceOfSatisfying(
            MismatchedInputException.class, e -> assertThat(path(e)).isEqualTo("constraints"));
  }

  @Test
  void strictRejectsDuplicateKeysAtAnyDepth() {
    assertThatThrownBy(
            () ->
                STRICT.readValue(
                    "{\"authorization_id\":\"a\",\"authorization_id\":\"b\"}", CheckRequest.class))
        .isInstanceOf(JsonParseException.class)
        .hasMessageContaining("Duplicate field 'authorization_id'");
    // Nested duplicates arrive wrapped with the path of the enclosing member.
    assertThatThrownBy(
            () -> STRICT.readValue("{\"context\":{\"k\":1,\"k\":2}}", CheckRequest.class))
        .isInstanceOfSatisfying(
            JsonMappingException.class, e -> assertThat(path(e)).isEqualTo("context"))
        .hasMessageContaining("Duplicate field 'k'");
  }

  @Test
  void clientKeepsTheLastOfDuplicateKeys() throws Exception {
    assertThat(
            CLIENT
                .readValue(
                    "{\"authorization_id\":\"a\",\"authorization_id\":\"b\"}", CheckRequest.class)
                .authorizationId())
        .isEqualTo("b");
  }

  @Test
  void strictRejectsNullForPrimitive() {
    assertThatThrownBy(
            () ->
                STRICT.readValue(
                    "{\"limit_micros\":null,\"spent_micros\":0,\"estimated_cost_micros\":0,"
                        + "\"spent_after_micros\":0}",
                    BudgetBlock.class))
        .isInstanceOf(MismatchedInputException.class);
  }

  @Test
  void bothMappersRejectTrailingTokens() {
    for (var mapper : List.of(CLIENT, STRICT)) {
      assertThatThrownBy(() -> mapper.readValue("{} {}", CheckRequest.class))
          .isInstanceOf(MismatchedInputException.class);
    }
  }

  @Test
  void strictAcceptsAbsentNullAndEmptyValuesSoTheServerCanValidateThem() throws Exception {
    assertThat(STRICT.readValue("{}", CheckRequest.class))
        .isEqualTo(new CheckRequest(null, null, null, null, null, null));
    CheckRequest r =
        STRICT.readValue(
            "{\"authorization_id\":null,\"scopes\":[],\"resource\":\"\",\"session_id\":null,"
                + "\"estimated_cost_micros\":-1,\"context\":{}}",
            CheckRequest.class);
    assertThat(r.authorizationId()).isNull();
    assertThat(r.scopes()).isEmpty();
    assertThat(r.resource()).isEmpty();
    assertThat(r.estimatedCostMicros()).isEqualTo(-1L);
    assertThat(r.context()).isEmpty();
  }

  @Test
  void strictAcceptsNullElementsAndValuesInRequests() throws Exception {
    CreateAuthorizationRequest r =
        STRICT.readValue(
            "{\"scopes\":[null,{\"name\":null}],\"requires_confirm_for\":[null],"
                + "\"escalation_targets\":{\"a\":null},\"metadata\":{\"k\":null}}",
            CreateAuthorizationRequest.class);
    assertThat(r.scopes()).containsExactly(null, new ScopeEntry(null, null));
    assertThat(r.requiresConfirmFor()).containsExactly((String) null);
    assertThat(r.escalationTargets()).containsEntry("a", null);
    assertThat(r.metadata()).containsEntry("k", null);
  }

  @Test
  void opaqueObjectsKeepMemberOrderAndJsonTypes() throws Exception {
    CheckRequest r =
        STRICT.readValue(
            "{\"context\":{\"z\":1,\"a\":\"s\",\"m\":{\"y\":true,\"b\":null},\"l\":[2,1],"
                + "\"big\":9007199254740991}}",
            CheckRequest.class);
    assertThat(r.context().keySet()).containsExactly("z", "a", "m", "l", "big");
    @SuppressWarnings("unchecked")
    Map<String, Object> nested = (Map<String, Object>) r.context().get("m");
    assertThat(nested.keySet()).containsExactly("y", "b");
    assertThat(r.context().get("big")).isEqualTo(9007199254740991L);
    assertThat(WireJson.write(r))
        .isEqualTo(
            "{\"context\":{\"z\":1,\"a\":\"s\",\"m\":{\"y\":true,\"b\":null},\"l\":[2,1],"
                + "\"big\":9007199254740991}}");
  }

  @Test
  void strictWritesLikeTheClientMapper() throws Exception {
    CheckRequest r = new CheckRequest("a", List.of("x"), null, null, null, null);
    assertThat(STRICT.writeValueAsString(r)).isEqualTo(CLIENT.writeValueAsString(r));
  }

  @Test
  void factoriesReturnIndependentMappers() {
    assertThat(AgentAuthJson.newObjectMapper()).isNotSameAs(AgentAuthJson.newObjectMapper());
    assertThat(AgentAuthJson.newStrictObjectMapper())
        .isNotSameAs(AgentAuthJson.newStrictObjectMapper());
  }

  /** Renders a Jackson failure path the way {@code errors[].field} does: {@code scopes[1].name}. */
  static String path(JsonMappingException e) {
    return Arrays.stream(e.getPath().toArray(new JsonMappingException.Reference[0]))
        .map(r -> r.getIndex() >= 0 ? "[" + r.getIndex() + "]" : "." + r.getFieldName())
        .collect(Collectors.joining())
        .substring(1)
        .replace(".[", "[");
  }
}
