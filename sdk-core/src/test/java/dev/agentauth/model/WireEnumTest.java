package dev.agentauth.model;

import static dev.agentauth.model.WireJson.CLIENT;
import static dev.agentauth.model.WireJson.STRICT;
import static dev.agentauth.model.WireJson.assertRoundTrip;
import static dev.agentauth.model.WireJson.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WireEnumTest {

  private static final List<Class<?>> TYPES =
      List.of(
          Decision.class,
          Reason.class,
          ReceiptEvent.class,
          AuthorizationStatus.class,
          EscalationStatus.class,
          BundleStatus.class,
          Plan.class,
          Resolution.class,
          ConfirmationDecision.class,
          FallbackMode.class);

  @Test
  void knownWireNameReturnsTheSharedConstant() {
    Decision allow = Decision.of("allow");
    assertThat(allow).isSameAs(Decision.ALLOW);
    assertThat(allow.isKnown()).isTrue();
    assertThat(allow.known()).contains(Decision.Known.ALLOW);
    assertThat(allow.value()).isEqualTo("allow");
    assertThat(allow).hasToString("allow");
  }

  @Test
  void unknownWireNameKeepsTheRawStringAndDoesNotThrow() {
    Decision future = Decision.of("quarantine");
    assertThat(future.isKnown()).isFalse();
    assertThat(future.known()).isEmpty();
    assertThat(future.value()).isEqualTo("quarantine");
    assertThat(future).hasToString("quarantine");
    assertThat(future).isEqualTo(Decision.of("quarantine")).hasSameHashCodeAs("quarantine");
  }

  @Test
  void wireNamesAreCaseSensitive() {
    assertThat(Decision.of("ALLOW").isKnown()).isFalse();
    assertThat(Decision.of("ALLOW")).isNotEqualTo(Decision.ALLOW);
  }

  @Test
  void equalityIsByTypeAndRawValue() {
    assertThat(ConfirmationDecision.APPROVED.value()).isEqualTo(Resolution.APPROVED.value());
    assertThat((Object) ConfirmationDecision.APPROVED).isNotEqualTo(Resolution.APPROVED);
    assertThat(Reason.of("escalation_rejected")).isEqualTo(Reason.ESCALATION_REJECTED);
  }

  @Test
  void ofNullThrows() {
    assertThatThrownBy(() -> Decision.of(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void unknownValuesInJsonReadAndWriteBackUnchanged() {
    String json =
        "{\"decision\":\"quarantine\",\"reason\":\"new_reason_code\","
            + "\"fallback_mode\":\"fail_sideways\"}";
    CheckResult result =
        assertRoundTrip(
            json,
            CheckResult.class,
            new CheckResult(
                Decision.of("quarantine"),
                Reason.of("new_reason_code"),
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                FallbackMode.of("fail_sideways")));
    assertThat(result.decision().isKnown()).isFalse();
    assertThat(result.reason().value()).isEqualTo("new_reason_code");
  }

  @Test
  void strictMapperAcceptsUnknownWireNamesSoTheServerCanNameTheField() {
    assertThat(
            WireJson.readStrict(
                    "{\"resolution\":\"maybe\",\"resolved_by\":\"mgr_1\"}",
                    EscalationResolveRequest.class)
                .resolution())
        .isEqualTo(Resolution.of("maybe"))
        .matches(r -> !r.isKnown());
  }

  @Test
  void numbersAreNotWireEnumValuesForEitherMapper() {
    assertThatThrownBy(() -> CLIENT.readValue("{\"resolution\":5}", EscalationResolveRequest.class))
        .isInstanceOf(MismatchedInputException.class);
    for (String json : new String[] {"{\"resolution\":5}", "{\"resolution\":true}"}) {
      assertThatThrownBy(() -> STRICT.readValue(json, EscalationResolveRequest.class))
          .as(json)
          .isInstanceOf(MismatchedInputException.class);
    }
  }

  @Test
  void wireEnumsWriteTheirRawString() {
    assertThat(write(List.of(ReceiptEvent.AUTHORIZATION_CREATE, Decision.of("x"))))
        .isEqualTo("[\"authorization.create\",\"x\"]");
  }

  @Test
  void everyKnownValueHasAPublicConstantOfTheSameName() throws Exception {
    for (Class<?> type : TYPES) {
      Class<?> known = Class.forName(type.getName() + "$Known");
      Method of = type.getMethod("of", String.class);
      for (Object k : known.getEnumConstants()) {
        String wireName = (String) known.getMethod("wireName").invoke(k);
        Field constant = type.getField(((Enum<?>) k).name());
        assertThat(Modifier.isStatic(constant.getModifiers())).isTrue();
        Object instance = of.invoke(null, wireName);
        assertThat(instance).as(type.getSimpleName() + "." + k).isSameAs(constant.get(null));
        assertThat(type.getMethod("known").invoke(instance)).isEqualTo(Optional.of(k));
      }
      long constants =
          Arrays.stream(type.getFields())
              .filter(f -> Modifier.isStatic(f.getModifiers()) && f.getType() == type)
              .count();
      assertThat(constants).as(type.getSimpleName()).isEqualTo(known.getEnumConstants().length);
    }
  }

  @Test
  void decisionsAreTheSpecsEight() {
    assertThat(wireNames(Decision.Known.values()))
        .containsExactly(
            "allow",
            "deny",
            "confirm",
            "escalate",
            "authorization_granted",
            "authorization_revoked",
            "escalation_approved",
            "escalation_rejected");
  }

  @Test
  void reasonsCoverCheckEventFallbackAndMiddlewareCodes() {
    assertThat(wireNames(Reason.Known.values()))
        .containsExactlyInAnyOrder(
            // service.md decisions table
            "authorization_granted_scope_active",
            "authorization_granted_via_confirmation",
            "authorization_granted_via_escalation",
            "authorization_not_found",
            "authorization_revoked",
            "authorization_expired",
            "scope_not_authorized",
            "resource_tombstoned",
            "rate_limit_exceeded",
            "budget_exceeded",
            "escalation_rejected",
            "scope_requires_user_confirmation",
            "escalation_required",
            // decisions.md section 6
            "authorization_created",
            "escalation_approved",
            // decisions.md section 13
            "fallback_closed_timeout",
            "fallback_closed_unreachable",
            "fallback_open_timeout",
            "fallback_open_unreachable",
            "fallback_closed_server_error",
            "fallback_open_server_error",
            // decisions.md section 14
            "missing_user_id");
  }

  @Test
  void smallEnumsUseTheSpecsWireNames() {
    assertThat(wireNames(ReceiptEvent.Known.values()))
        .containsExactly("authorization.create", "authorization.revoke", "escalation.resolve");
    assertThat(wireNames(AuthorizationStatus.Known.values()))
        .containsExactly("active", "revoked", "expired");
    assertThat(wireNames(EscalationStatus.Known.values()))
        .containsExactly("pending", "approved", "rejected", "expired");
    assertThat(wireNames(BundleStatus.Known.values())).containsExactly("active", "deleted");
    assertThat(wireNames(Plan.Known.values())).containsExactly("free", "pro");
    assertThat(wireNames(Resolution.Known.values())).containsExactly("approved", "rejected");
    assertThat(wireNames(ConfirmationDecision.Known.values()))
        .containsExactly("approved", "denied_by_user");
    assertThat(wireNames(FallbackMode.Known.values())).containsExactly("fail_closed", "fail_open");
  }

  private static List<String> wireNames(WireEnum.WireName[] known) {
    return Arrays.stream(known).map(WireEnum.WireName::wireName).toList();
  }
}
