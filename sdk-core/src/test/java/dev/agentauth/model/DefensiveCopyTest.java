package dev.agentauth.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DefensiveCopyTest {

  private static final Instant T = Instant.parse("2026-11-22T10:15:30.123Z");

  @Test
  void recordsDoNotSeeLaterChangesToTheCallersCollections() {
    List<String> scopes = new ArrayList<>(List.of("a"));
    Map<String, Object> context = new LinkedHashMap<>(Map.of("k", "v"));
    CheckRequest request = new CheckRequest("auth", scopes, null, null, null, context);
    scopes.add("b");
    context.put("k2", "v2");
    assertThat(request.scopes()).containsExactly("a");
    assertThat(request.context()).containsOnlyKeys("k");
  }

  @Test
  void recordCollectionsAreUnmodifiable() {
    CreateAuthorizationRequest request =
        new CreateAuthorizationRequest(
            null,
            null,
            null,
            new ArrayList<>(List.of(ScopeEntry.of("s"))),
            new ArrayList<>(List.of("s")),
            null,
            new HashMap<>(Map.of("s", "m")),
            null,
            null,
            new LinkedHashMap<>(Map.of("k", "v")));
    assertThatThrownBy(() -> request.scopes().add(ScopeEntry.of("x")))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> request.requiresConfirmFor().clear())
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> request.escalationTargets().put("x", "y"))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> request.metadata().put("x", "y"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void opaqueObjectsAreCopiedDeeply() {
    Map<String, Object> inner = new LinkedHashMap<>();
    inner.put("n", 1);
    List<Object> list = new ArrayList<>(List.of("x"));
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("inner", inner);
    metadata.put("list", list);
    CreateAuthorizationRequest request =
        new CreateAuthorizationRequest(
            null, null, null, null, null, null, null, null, null, metadata);
    inner.put("m", 2);
    list.add("y");
    assertThat(request.metadata().get("inner")).isEqualTo(Map.of("n", 1));
    assertThat(request.metadata().get("list")).isEqualTo(List.of("x"));
    @SuppressWarnings("unchecked")
    Map<String, Object> copiedInner = (Map<String, Object>) request.metadata().get("inner");
    assertThatThrownBy(() -> copiedInner.put("z", 0))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void mapCopiesKeepInsertionOrder() {
    Map<String, String> targets = new LinkedHashMap<>();
    targets.put("z", "1");
    targets.put("a", "2");
    targets.put("m", "3");
    Map<String, CheckResult> results = new LinkedHashMap<>();
    for (String scope : List.of("z", "a", "m")) {
      results.put(
          scope,
          new CheckResult(
              Decision.DENY,
              Reason.SCOPE_NOT_AUTHORIZED,
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
              null));
    }
    assertThat(
            new CreateAuthorizationRequest(
                    null, null, null, null, null, null, targets, null, null, null)
                .escalationTargets()
                .keySet())
        .containsExactly("z", "a", "m");
    assertThat(new CheckResponse("a", null, null, null, "v", results).results().keySet())
        .containsExactly("z", "a", "m");
  }

  @Test
  void requestCopiesKeepNullsSoAbsentStaysAbsent() {
    CheckRequest request = new CheckRequest(null, null, null, null, null, null);
    assertThat(request.scopes()).isNull();
    assertThat(request.context()).isNull();
    CheckRequest withNullElement =
        new CheckRequest(null, Arrays.asList("a", null), null, null, null, null);
    assertThat(withNullElement.scopes()).containsExactly("a", null);
  }

  @Test
  void responseCopiesTurnNullIntoEmpty() {
    assertThat(new CheckResponse("a", null, null, null, "v", null).results()).isEmpty();
    assertThat(new ReceiptPage(null, false, null).receipts()).isEmpty();
    assertThat(new WorkspaceKeys("ws", null).keys()).isEmpty();
    assertThat(new TombstonePage(null, false, null).tombstones()).isEmpty();
    assertThat(new EscalationPage(null, false, null).escalations()).isEmpty();
    assertThat(new AuthorizationPage(null, false, null).authorizations()).isEmpty();
  }

  @Test
  void signedReceiptContextIsCopiedAndNullIsKept() {
    Map<String, Object> context = new LinkedHashMap<>();
    context.put("null_val", null);
    SignedReceipt receipt =
        new SignedReceipt(
            "1.0",
            "r",
            "ws",
            T,
            Decision.ALLOW,
            Reason.AUTHORIZATION_GRANTED_SCOPE_ACTIVE,
            "u",
            "a",
            "s",
            null,
            null,
            context,
            "auth",
            "v",
            null,
            null);
    context.put("later", 1);
    assertThat(receipt.context()).containsOnlyKeys("null_val");
    assertThat(
            new SignedReceipt(
                    "1.0",
                    "r",
                    "ws",
                    T,
                    Decision.ALLOW,
                    Reason.AUTHORIZATION_GRANTED_SCOPE_ACTIVE,
                    "u",
                    "a",
                    "s",
                    null,
                    null,
                    null,
                    "auth",
                    "v",
                    null,
                    null)
                .context())
        .isNull();
  }
}
