package dev.agentauth.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.model.Decision;
import dev.agentauth.model.EscalationStatus;
import dev.agentauth.model.Reason;
import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.domain.EscalationRow;
import dev.agentauth.server.domain.GrantRow;
import dev.agentauth.server.domain.NonceRow;
import dev.agentauth.server.domain.ScopeRule;
import dev.agentauth.server.engine.CheckOutcome.Change;
import dev.agentauth.server.engine.CheckOutcome.ConsumeApproval;
import dev.agentauth.server.engine.CheckOutcome.CountAllow;
import dev.agentauth.server.engine.CheckOutcome.CreateEscalation;
import dev.agentauth.server.engine.CheckOutcome.CreateNonce;
import dev.agentauth.server.engine.CheckOutcome.ScopeResult;
import dev.agentauth.server.engine.CheckOutcome.SpendBudget;
import dev.agentauth.server.engine.CheckSnapshot.ScopeState;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The decision table of {@link DecisionEngine}, without a server or a store: each row names the
 * step of the eleven that decides, the state that makes it decide, and the decision, reason and
 * state changes that must come out. Rows where two steps would fail show that the first one wins.
 */
class DecisionEngineTest {
  private static final String WS = "ws_1";
  private static final String AUTH = "auth_1";
  private static final String SCOPE = "email.send";
  private static final Instant NOW = Instant.parse("2026-11-22T10:00:00Z");
  private static final Instant EXPIRES = NOW.plus(Duration.ofDays(30));

  private final DecisionEngine engine = new DecisionEngine(() -> "nonce_new", () -> "esc_new");

  /** One row: what differs from an authorization granting {@link #SCOPE} with no constraints. */
  record Row(
      String step,
      UnaryOperator<Fixture> given,
      Decision.Known decision,
      Reason.Known reason,
      List<Class<? extends Change>> changes) {
    @Override
    public String toString() {
      return step;
    }
  }

  /** The inputs of one evaluation, changed a piece at a time by a row. */
  record Fixture(
      AuthorizationRow authorization,
      boolean tombstoned,
      List<String> patterns,
      ScopeState state,
      String resource,
      Long estimate,
      String initiator,
      Instant now) {

    Fixture auth(UnaryOperator<AuthBuilder> change) {
      return new Fixture(
          change.apply(new AuthBuilder(authorization)).build(),
          tombstoned,
          patterns,
          state,
          resource,
          estimate,
          initiator,
          now);
    }

    Fixture state(ScopeState s) {
      return new Fixture(
          authorization, tombstoned, patterns, s, resource, estimate, initiator, now);
    }

    Fixture with(String res, Long est, String init) {
      return new Fixture(authorization, tombstoned, patterns, state, res, est, init, now);
    }

    Fixture onTombstone() {
      return new Fixture(authorization, true, patterns, state, resource, estimate, initiator, now);
    }

    /** The workspace has pattern tombstones {@code p}. */
    Fixture onPatterns(String... p) {
      return new Fixture(
          authorization, tombstoned, List.of(p), state, resource, estimate, initiator, now);
    }

    Fixture at(Instant t) {
      return new Fixture(
          authorization, tombstoned, patterns, state, resource, estimate, initiator, t);
    }

    Fixture noAuthorization() {
      return new Fixture(null, tombstoned, patterns, state, resource, estimate, initiator, now);
    }
  }

  /** Changes one field of an authorization row at a time. */
  static final class AuthBuilder {
    List<ScopeRule> scopes;
    List<String> confirm;
    List<String> escalate;
    Instant expiresAt;
    Long budgetLimit;
    long budgetSpent;
    Instant revokedAt;

    AuthBuilder(AuthorizationRow a) {
      scopes = a.scopes();
      confirm = a.requiresConfirmFor();
      escalate = a.requiresEscalationFor();
      expiresAt = a.expiresAt();
      budgetLimit = a.budgetLimitMicros();
      budgetSpent = a.budgetSpentMicros();
      revokedAt = a.revokedAt();
    }

    AuthBuilder rule(Long maxPerDay, String pattern, List<String> initiators) {
      scopes = List.of(new ScopeRule(SCOPE, maxPerDay, pattern, initiators));
      return this;
    }

    AuthBuilder scopes(String... names) {
      List<ScopeRule> rules = new ArrayList<>();
      for (String n : names) {
        rules.add(new ScopeRule(n, null, null, null));
      }
      scopes = rules;
      return this;
    }

    AuthBuilder confirm() {
      confirm = List.of(SCOPE);
      return this;
    }

    AuthBuilder escalate() {
      escalate = List.of(SCOPE);
      return this;
    }

    AuthBuilder expires(Instant t) {
      expiresAt = t;
      return this;
    }

    AuthBuilder budget(long limit, long spent) {
      budgetLimit = limit;
      budgetSpent = spent;
      return this;
    }

    AuthBuilder revoked(Instant t) {
      revokedAt = t;
      return this;
    }

    AuthorizationRow build() {
      return new AuthorizationRow(
          WS,
          AUTH,
          "user_1",
          "agent_1",
          null,
          scopes,
          confirm,
          escalate,
          Map.of(SCOPE, "finance"),
          expiresAt,
          budgetLimit,
          budgetSpent,
          NOW.minusSeconds(3600),
          revokedAt,
          null);
    }
  }

  private static Fixture base() {
    AuthorizationRow auth =
        new AuthBuilder(
                new AuthorizationRow(
                    WS,
                    AUTH,
                    "user_1",
                    "agent_1",
                    null,
                    List.of(new ScopeRule(SCOPE, null, null, null)),
                    List.of(),
                    List.of(),
                    Map.of(),
                    EXPIRES,
                    null,
                    0,
                    NOW,
                    null,
                    null))
            .build();
    return new Fixture(auth, false, List.of(), ScopeState.EMPTY, "doc:1", null, null, NOW);
  }

  private static EscalationRow escalation(
      EscalationStatus.Known status, Instant expiresAt, Instant approvalUntil, Instant consumed) {
    return new EscalationRow(
        WS,
        "esc_old",
        AUTH,
        SCOPE,
        "doc:1",
        status,
        "finance",
        NOW.minusSeconds(600),
        expiresAt,
        status == EscalationStatus.Known.PENDING ? null : "mgr",
        status == EscalationStatus.Known.PENDING ? null : NOW.minusSeconds(300),
        null,
        approvalUntil,
        consumed);
  }

  private static NonceRow nonce(Instant expiresAt, Instant consumedAt) {
    return new NonceRow(
        WS, "nonce_old", AUTH, SCOPE, "doc:1", NOW.minusSeconds(60), expiresAt, consumedAt, null);
  }

  private static GrantRow grant(Instant expiresAt) {
    return new GrantRow(
        WS,
        "grant_1",
        AUTH,
        SCOPE,
        "doc:1",
        "nonce_x",
        NOW.minusSeconds(60),
        expiresAt,
        new GrantRow.ApprovedBy("key_1", "tool_server", "mcp_elicitation"));
  }

  private static ScopeState state(
      long allows, GrantRow grant, NonceRow nonce, EscalationRow escalation) {
    return new ScopeState(allows, grant, nonce, escalation);
  }

  private static Row row(
      String step,
      UnaryOperator<Fixture> given,
      Decision.Known decision,
      Reason.Known reason,
      List<Class<? extends Change>> changes) {
    return new Row(step, given, decision, reason, changes);
  }

  private static final Decision.Known ALLOW = Decision.Known.ALLOW;
  private static final Decision.Known DENY = Decision.Known.DENY;
  private static final Decision.Known CONFIRM = Decision.Known.CONFIRM;
  private static final Decision.Known ESCALATE = Decision.Known.ESCALATE;
  private static final Instant LATER = NOW.plusSeconds(600);
  private static final Instant EARLIER = NOW.minusSeconds(1);

  static Stream<Row> table() {
    return Stream.of(
        row(
            "1 no authorization",
            Fixture::noAuthorization,
            DENY,
            Reason.Known.AUTHORIZATION_NOT_FOUND,
            List.of()),
        row(
            "2 revoked",
            f -> f.auth(a -> a.revoked(EARLIER)),
            DENY,
            Reason.Known.AUTHORIZATION_REVOKED,
            List.of()),
        row(
            "2 before 3: revoked and expired",
            f -> f.auth(a -> a.revoked(EARLIER).expires(EARLIER)),
            DENY,
            Reason.Known.AUTHORIZATION_REVOKED,
            List.of()),
        row(
            "3 expired at its expiry instant",
            f -> f.auth(a -> a.expires(NOW)),
            DENY,
            Reason.Known.AUTHORIZATION_EXPIRED,
            List.of()),
        row(
            "3 not yet expired a millisecond before",
            f -> f.auth(a -> a.expires(NOW.plusMillis(1))),
            ALLOW,
            Reason.Known.AUTHORIZATION_GRANTED_SCOPE_ACTIVE,
            List.of(CountAllow.class)),
        row(
            "3 before 4: expired and scope missing",
            f -> f.auth(a -> a.expires(EARLIER).scopes("other")),
            DENY,
            Reason.Known.AUTHORIZATION_EXPIRED,
            List.of()),
        row(
            "4 scope not granted",
            f -> f.auth(a -> a.scopes("email.read")),
            DENY,
            Reason.Known.SCOPE_NOT_AUTHORIZED,
            List.of()),
        row(
            "4 scope names are exact (no prefix match)",
            f -> f.auth(a -> a.scopes("email")),
            DENY,
            Reason.Known.SCOPE_NOT_AUTHORIZED,
            List.of()),
        row(
            "5 resource outside the pattern",
            f -> f.auth(a -> a.rule(null, "crm:*", null)),
            DENY,
            Reason.Known.SCOPE_NOT_AUTHORIZED,
            List.of()),
        row(
            "5 resource inside the pattern",
            f -> f.auth(a -> a.rule(null, "doc:*", null)),
            ALLOW,
            Reason.Known.AUTHORIZATION_GRANTED_SCOPE_ACTIVE,
            List.of(CountAllow.class)),
        row(
            "5 pattern and no resource",
            f -> f.auth(a -> a.rule(null, "doc:*", null)).with(null, null, null),
            DENY,
            Reason.Known.SCOPE_NOT_AUTHORIZED,
            List.of()),
        row(
            "5 initiator missing",
            f -> f.auth(a -> a.rule(null, null, List.of("user"))),
            DENY,
            Reason.Known.SCOPE_NOT_AUTHORIZED,
            List.of()),
        row(
            "5 initiator not listed",
            f -> f.auth(a -> a.rule(null, null, List.of("user"))).with("doc:1", null, "agent"),
            DENY,
            Reason.Known.SCOPE_NOT_AUTHORIZED,
            List.of()),
        row(
            "5 initiator listed",
            f -> f.auth(a -> a.rule(null, null, List.of("user"))).with("doc:1", null, "user"),
            ALLOW,
            Reason.Known.AUTHORIZATION_GRANTED_SCOPE_ACTIVE,
            List.of(CountAllow.class)),
        row(
            "5 before 6: constraint fails on a tombstoned resource",
            f -> f.auth(a -> a.rule(null, "crm:*", null)).onTombstone(),
            DENY,
            Reason.Known.SCOPE_NOT_AUTHORIZED,
            List.of()),
        row(
            "6 tombstoned resource",
            Fixture::onTombstone,
            DENY,
            Reason.Known.RESOURCE_TOMBSTONED,
            List.of()),
        row(
            "6 resource matched by a pattern tombstone",
            f -> f.onPatterns("other:*", "doc:?"),
            DENY,
            Reason.Known.RESOURCE_TOMBSTONED,
            List.of()),
        row(
            "6 pattern tombstones that do not match",
            f -> f.onPatterns("doc:1?", "Doc:*", "doc:[!1]"),
            ALLOW,
            Reason.Known.AUTHORIZATION_GRANTED_SCOPE_ACTIVE,
            List.of(CountAllow.class)),
        row(
            "6 no resource matches no pattern",
            f -> f.onPatterns("*").with(null, null, null),
            ALLOW,
            Reason.Known.AUTHORIZATION_GRANTED_SCOPE_ACTIVE,
            List.of(CountAllow.class)),
        row(
            "5 before 6: constraint fails on a resource a pattern tombstones",
            f -> f.auth(a -> a.rule(null, "crm:*", null)).onPatterns("*"),
            DENY,
            Reason.Known.SCOPE_NOT_AUTHORIZED,
            List.of()),
        row(
            "6 before 7: pattern tombstoned and rate limited",
            f ->
                f.auth(a -> a.rule(1L, null, null))
                    .state(state(1, null, null, null))
                    .onPatterns("doc:*"),
            DENY,
            Reason.Known.RESOURCE_TOMBSTONED,
            List.of()),
        row(
            "6 before 7: tombstoned and rate limited",
            f ->
                f.auth(a -> a.rule(1L, null, null)).state(state(1, null, null, null)).onTombstone(),
            DENY,
            Reason.Known.RESOURCE_TOMBSTONED,
            List.of()),
        row(
            "7 daily limit reached",
            f -> f.auth(a -> a.rule(3L, null, null)).state(state(3, null, null, null)),
            DENY,
            Reason.Known.RATE_LIMIT_EXCEEDED,
            List.of()),
        row(
            "7 one allow left",
            f -> f.auth(a -> a.rule(3L, null, null)).state(state(2, null, null, null)),
            ALLOW,
            Reason.Known.AUTHORIZATION_GRANTED_SCOPE_ACTIVE,
            List.of(CountAllow.class)),
        row(
            "7 before 8: rate limited and over budget",
            f ->
                f.auth(a -> a.rule(1L, null, null).budget(100, 100))
                    .state(state(1, null, null, null))
                    .with("doc:1", 1L, null),
            DENY,
            Reason.Known.RATE_LIMIT_EXCEEDED,
            List.of()),
        row(
            "8 estimate beyond the budget",
            f -> f.auth(a -> a.budget(1000, 900)).with("doc:1", 101L, null),
            DENY,
            Reason.Known.BUDGET_EXCEEDED,
            List.of()),
        row(
            "8 estimate exactly fills the budget",
            f -> f.auth(a -> a.budget(1000, 900)).with("doc:1", 100L, null),
            ALLOW,
            Reason.Known.AUTHORIZATION_GRANTED_SCOPE_ACTIVE,
            List.of(CountAllow.class, SpendBudget.class)),
        row(
            "8 no estimate spends nothing",
            f -> f.auth(a -> a.budget(1000, 1000)),
            ALLOW,
            Reason.Known.AUTHORIZATION_GRANTED_SCOPE_ACTIVE,
            List.of(CountAllow.class)),
        row(
            "8 before 9: over budget where escalation is required",
            f -> f.auth(a -> a.budget(10, 10).escalate()).with("doc:1", 1L, null),
            DENY,
            Reason.Known.BUDGET_EXCEEDED,
            List.of()),
        row(
            "9 escalation required, none yet",
            f -> f.auth(AuthBuilder::escalate),
            ESCALATE,
            Reason.Known.ESCALATION_REQUIRED,
            List.of(CreateEscalation.class)),
        row(
            "9 escalation pending",
            f ->
                f.auth(AuthBuilder::escalate)
                    .state(
                        state(
                            0,
                            null,
                            null,
                            escalation(EscalationStatus.Known.PENDING, LATER, null, null))),
            ESCALATE,
            Reason.Known.ESCALATION_REQUIRED,
            List.of()),
        row(
            "9 pending escalation expired: a new one",
            f ->
                f.auth(AuthBuilder::escalate)
                    .state(
                        state(
                            0,
                            null,
                            null,
                            escalation(EscalationStatus.Known.PENDING, NOW, null, null))),
            ESCALATE,
            Reason.Known.ESCALATION_REQUIRED,
            List.of(CreateEscalation.class)),
        row(
            "9 escalation rejected",
            f ->
                f.auth(AuthBuilder::escalate)
                    .state(
                        state(
                            0,
                            null,
                            null,
                            escalation(EscalationStatus.Known.REJECTED, LATER, null, null))),
            DENY,
            Reason.Known.ESCALATION_REJECTED,
            List.of()),
        row(
            "9 rejection lapsed: a new escalation",
            f ->
                f.auth(AuthBuilder::escalate)
                    .state(
                        state(
                            0,
                            null,
                            null,
                            escalation(EscalationStatus.Known.REJECTED, EARLIER, null, null))),
            ESCALATE,
            Reason.Known.ESCALATION_REQUIRED,
            List.of(CreateEscalation.class)),
        row(
            "9 approval active: allowed once",
            f ->
                f.auth(AuthBuilder::escalate)
                    .state(
                        state(
                            0,
                            null,
                            null,
                            escalation(EscalationStatus.Known.APPROVED, LATER, LATER, null))),
            ALLOW,
            Reason.Known.AUTHORIZATION_GRANTED_VIA_ESCALATION,
            List.of(CountAllow.class, ConsumeApproval.class)),
        row(
            "9 approval consumed: a new escalation",
            f ->
                f.auth(AuthBuilder::escalate)
                    .state(
                        state(
                            0,
                            null,
                            null,
                            escalation(EscalationStatus.Known.APPROVED, LATER, LATER, EARLIER))),
            ESCALATE,
            Reason.Known.ESCALATION_REQUIRED,
            List.of(CreateEscalation.class)),
        row(
            "9 approval window over: a new escalation",
            f ->
                f.auth(AuthBuilder::escalate)
                    .state(
                        state(
                            0,
                            null,
                            null,
                            escalation(EscalationStatus.Known.APPROVED, LATER, NOW, null))),
            ESCALATE,
            Reason.Known.ESCALATION_REQUIRED,
            List.of(CreateEscalation.class)),
        row(
            "9 before 10: escalation and confirmation both required",
            f -> f.auth(a -> a.escalate().confirm()),
            ESCALATE,
            Reason.Known.ESCALATION_REQUIRED,
            List.of(CreateEscalation.class)),
        row(
            "9 then 10: approved escalation still needs the confirmation",
            f ->
                f.auth(a -> a.escalate().confirm())
                    .state(
                        state(
                            0,
                            null,
                            null,
                            escalation(EscalationStatus.Known.APPROVED, LATER, LATER, null))),
            CONFIRM,
            Reason.Known.SCOPE_REQUIRES_USER_CONFIRMATION,
            List.of(CreateNonce.class)),
        row(
            "10 confirmation required, none open",
            f -> f.auth(AuthBuilder::confirm),
            CONFIRM,
            Reason.Known.SCOPE_REQUIRES_USER_CONFIRMATION,
            List.of(CreateNonce.class)),
        row(
            "10 open nonce reused",
            f -> f.auth(AuthBuilder::confirm).state(state(0, null, nonce(LATER, null), null)),
            CONFIRM,
            Reason.Known.SCOPE_REQUIRES_USER_CONFIRMATION,
            List.of()),
        row(
            "10 nonce expired: a new one",
            f -> f.auth(AuthBuilder::confirm).state(state(0, null, nonce(NOW, null), null)),
            CONFIRM,
            Reason.Known.SCOPE_REQUIRES_USER_CONFIRMATION,
            List.of(CreateNonce.class)),
        row(
            "10 nonce consumed: a new one",
            f -> f.auth(AuthBuilder::confirm).state(state(0, null, nonce(LATER, EARLIER), null)),
            CONFIRM,
            Reason.Known.SCOPE_REQUIRES_USER_CONFIRMATION,
            List.of(CreateNonce.class)),
        row(
            "10 confirmation window active",
            f -> f.auth(AuthBuilder::confirm).state(state(0, grant(LATER), null, null)),
            ALLOW,
            Reason.Known.AUTHORIZATION_GRANTED_VIA_CONFIRMATION,
            List.of(CountAllow.class)),
        row(
            "10 confirmation window over",
            f -> f.auth(AuthBuilder::confirm).state(state(0, grant(NOW), null, null)),
            CONFIRM,
            Reason.Known.SCOPE_REQUIRES_USER_CONFIRMATION,
            List.of(CreateNonce.class)),
        row(
            "11 allow",
            UnaryOperator.identity(),
            ALLOW,
            Reason.Known.AUTHORIZATION_GRANTED_SCOPE_ACTIVE,
            List.of(CountAllow.class)),
        row(
            "11 allow with every constraint met",
            f ->
                f.auth(a -> a.rule(5L, "doc:*", List.of("user")).budget(100, 0))
                    .state(state(4, null, null, null))
                    .with("doc:1", 100L, "user"),
            ALLOW,
            Reason.Known.AUTHORIZATION_GRANTED_SCOPE_ACTIVE,
            List.of(CountAllow.class, SpendBudget.class)));
  }

  private CheckOutcome evaluate(Fixture f) {
    ObjectNode context = null;
    if (f.initiator() != null) {
      context = JsonNodeFactory.instance.objectNode().put("initiated_by", f.initiator());
    }
    CheckInput in =
        new CheckInput(AUTH, List.of(SCOPE), f.resource(), "sess_1", f.estimate(), context);
    CheckSnapshot snap =
        new CheckSnapshot(
            f.authorization(), f.tombstoned(), f.patterns(), Map.of(SCOPE, f.state()));
    return engine.evaluate(WS, snap, in, f.now());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("table")
  void decidesEachStep(Row row) {
    CheckOutcome outcome = evaluate(row.given().apply(base()));
    assertThat(outcome.results()).hasSize(1);
    ScopeResult r = outcome.results().get(0);
    assertThat(r.scope()).isEqualTo(SCOPE);
    assertThat(r.decision()).isEqualTo(row.decision());
    assertThat(r.reason()).isEqualTo(row.reason());
    assertThat(outcome.changes()).map(Object::getClass).containsExactlyElementsOf(row.changes());
  }

  @Test
  void anAllowCountsOnTheUtcDayAndSpendsTheEstimate() {
    Fixture f =
        base()
            .auth(a -> a.budget(1000, 250))
            .with("doc:1", 100L, null)
            .at(Instant.parse("2026-11-22T23:59:59.999Z"));
    CheckOutcome outcome = evaluate(f);
    assertThat(outcome.changes())
        .containsExactly(
            new CountAllow(SCOPE, LocalDate.parse("2026-11-22")), new SpendBudget(100));
    assertThat(outcome.results().get(0).budget())
        .isEqualTo(new CheckOutcome.Budget(1000, 250, 100, 350));
  }

  @Test
  void aBudgetDenialReportsNothingSpent() {
    CheckOutcome outcome = evaluate(base().auth(a -> a.budget(1000, 950)).with("doc:1", 51L, null));
    assertThat(outcome.results().get(0).budget())
        .isEqualTo(new CheckOutcome.Budget(1000, 950, 51, 950));
  }

  @Test
  void aNewNonceAndEscalationCarryTheirLifetimes() {
    ScopeResult confirm = evaluate(base().auth(AuthBuilder::confirm)).results().get(0);
    assertThat(confirm.nonce().nonce()).isEqualTo("nonce_new");
    assertThat(confirm.nonce().expiresAt()).isEqualTo(NOW.plus(DecisionEngine.NONCE_LIFETIME));
    ScopeResult escalate = evaluate(base().auth(AuthBuilder::escalate)).results().get(0);
    assertThat(escalate.escalation().escalationId()).isEqualTo("esc_new");
    assertThat(escalate.escalation().status()).isEqualTo(EscalationStatus.Known.PENDING);
    assertThat(escalate.escalation().escalationTo()).isEqualTo("finance");
    assertThat(escalate.escalation().expiresAt())
        .isEqualTo(NOW.plus(DecisionEngine.ESCALATION_LIFETIME));
  }

  @Test
  void aConsumedApprovalIsMarkedAtTheCheck() {
    EscalationRow approved = escalation(EscalationStatus.Known.APPROVED, LATER, LATER, null);
    CheckOutcome outcome =
        evaluate(base().auth(AuthBuilder::escalate).state(state(0, null, null, approved)));
    assertThat(outcome.changes()).contains(new ConsumeApproval(approved.approvalConsumed(NOW)));
    assertThat(outcome.results().get(0).escalation()).isEqualTo(approved);
  }

  @Test
  void everyScopeOfACheckIsDecidedOnItsOwnInOrder() {
    Fixture f = base().auth(a -> a.scopes(SCOPE, "email.read"));
    CheckInput in =
        new CheckInput(
            AUTH, List.of("email.read", "files.delete", SCOPE), "doc:1", null, null, null);
    CheckOutcome outcome =
        engine.evaluate(WS, new CheckSnapshot(f.authorization(), false, Map.of()), in, NOW);
    assertThat(outcome.results())
        .extracting(ScopeResult::scope, ScopeResult::decision, ScopeResult::reason)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "email.read", ALLOW, Reason.Known.AUTHORIZATION_GRANTED_SCOPE_ACTIVE),
            org.assertj.core.groups.Tuple.tuple(
                "files.delete", DENY, Reason.Known.SCOPE_NOT_AUTHORIZED),
            org.assertj.core.groups.Tuple.tuple(
                SCOPE, ALLOW, Reason.Known.AUTHORIZATION_GRANTED_SCOPE_ACTIVE));
    assertThat(outcome.changes())
        .containsExactly(
            new CountAllow("email.read", LocalDate.parse("2026-11-22")),
            new CountAllow(SCOPE, LocalDate.parse("2026-11-22")));
  }
}
