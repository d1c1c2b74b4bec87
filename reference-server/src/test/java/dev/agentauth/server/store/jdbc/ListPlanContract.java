package dev.agentauth.server.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.model.AuthorizationStatus;
import dev.agentauth.model.EscalationStatus;
import dev.agentauth.server.store.AuthorizationFilter;
import dev.agentauth.server.store.EscalationFilter;
import dev.agentauth.server.store.Page;
import dev.agentauth.server.store.PageRequest;
import dev.agentauth.server.store.ReceiptFilter;
import dev.agentauth.server.store.ReceiptRow;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The plans of the list queries, on a table larger than one {@link JdbcTx#SCAN_WINDOW}: every
 * filter of {@code GET /v1/receipts}, {@code /v1/authorizations} and {@code /v1/escalations} is
 * either sought through an index together with {@code workspace_id} in key order, or checked on a
 * window of rows whose end a covering index finds first, so no page reads a workspace's whole table
 * (as {@code user_id=nobody} did on 500,000 receipts). Each statement a list runs is captured with
 * its arguments and explained by the database.
 */
abstract class ListPlanContract {
  static final String WS = "ws_1";

  /** Rows of each table in the workspace listed: three windows' worth. */
  static final int ROWS = 3 * JdbcTx.SCAN_WINDOW;

  static final String OTHER_WS = "ws_2";
  static final int OTHER_ROWS = 100_000;

  JdbcStore store;
  Connection c;

  /** Opens the store under test (migrated) and {@link #c}, a plain connection to its database. */
  abstract void open() throws SQLException;

  abstract Dialect dialect();

  /** The rows {@code 1..n} of {@code select}, whose {@code n} column is each row's number. */
  abstract String series(int n, String select);

  /** The SQL that explains {@code sql} with the same arguments. */
  abstract String explain(String sql);

  /** Asserts that {@code plan} seeks {@code index} on workspace and {@code column} in key order. */
  abstract void assertSeeks(String plan, String index, String column);

  /** Asserts that {@code plan} reads only keys, through an index, in key order. */
  abstract void assertFindsTheWindowThroughAnIndex(String plan);

  /** Asserts that {@code plan} reads rows only up to the window's end, through an index. */
  abstract void assertReadsOnlyTheWindow(String plan, String key);

  /** Run after seeding (PostgreSQL: ANALYZE, so that plans are made from real statistics). */
  void analyze() throws SQLException {}

  @BeforeEach
  void seed() throws SQLException {
    open();
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      // Another workspace's rows make each table several times longer than this workspace's, as
      // in a shared service (on a table barely longer than a window, PostgreSQL rightly prefers
      // to read it all).
      for (String ws : new String[] {WS, OTHER_WS}) {
        s.execute(
            "INSERT INTO receipts (workspace_id, receipt_id, authorization_id, user_id, resource,"
                + " session_id, scope, event, decision, issued_at, payload_json) "
                + series(
                    ws.equals(WS) ? ROWS : OTHER_ROWS,
                    "SELECT '"
                        + ws
                        + "', 'r' || "
                        + pad("n")
                        + ", 'auth_' || (n % 2), 'user_' || (n % 2), 'doc:' || (n % 1000),"
                        + " 'sess_' || (n % 50), CASE WHEN n % 7000 = 0 THEN 'rare' ELSE"
                        + " 'email.send' END, NULL, 'allow', n, '{}'"));
      }
      for (String ws : new String[] {WS, OTHER_WS}) {
        int rows = ws.equals(WS) ? ROWS : OTHER_ROWS;
        s.execute(
            "INSERT INTO authorizations (workspace_id, authorization_id, user_id, agent_id,"
                + " scopes, requires_confirm_for, requires_escalation_for, escalation_targets,"
                + " expires_at, budget_spent_micros, created_at) "
                + series(
                    rows,
                    "SELECT '"
                        + ws
                        + "', 'auth_' || "
                        + pad("n")
                        + ", 'user_' || (n % 100), 'agent_' || (n % 10), '[]', '[]', '[]', '{}',"
                        + " 4000000000000, 0, n"));
        s.execute(
            "INSERT INTO escalations (workspace_id, escalation_id, authorization_id, scope,"
                + " resource_key, status, created_at, expires_at) "
                + series(
                    rows,
                    "SELECT '"
                        + ws
                        + "', 'esc_' || "
                        + pad("n")
                        + ", 'auth_1', 'email.send', '', 'approved', n, 4000000000000"));
      }
    }
    c.commit();
    c.setAutoCommit(true);
    analyze();
  }

  String pad(String n) {
    return dialect() == Dialect.SQLITE
        ? "printf('%010d', " + n + ")"
        : "lpad(" + n + "::text, 10, '0')";
  }

  @AfterEach
  void closeAll() throws SQLException {
    if (c != null) {
      c.close();
    }
    if (store != null) {
      store.close();
    }
  }

  // ---- receipts

  @Test
  void authorizationIdAndUserIdAreSoughtThroughTheirIndexesInReceiptIdOrder() throws SQLException {
    for (String after : new String[] {null, "r0000001000"}) {
      List<String> plans =
          plans(tx -> tx.listReceipts(WS, filter("auth_7", null), new PageRequest(after, 50)));
      assertThat(plans).hasSize(1);
      assertSeeks(plans.get(0), "receipts_by_authorization", "authorization_id");

      plans = plans(tx -> tx.listReceipts(WS, filter(null, "nobody"), new PageRequest(after, 50)));
      assertThat(plans).hasSize(1);
      assertSeeks(plans.get(0), "receipts_by_user", "user_id");
    }
  }

  @Test
  void everyOtherReceiptFilterReadsOnlyAWindowOfTheIndexedRows() throws SQLException {
    Instant t = Instant.ofEpochMilli(ROWS / 2);
    List<ReceiptFilter> filters =
        List.of(
            new ReceiptFilter(null, null, "doc:nothing", null, null, null, null, null, null),
            new ReceiptFilter(null, null, null, "sess_none", null, null, null, null, null),
            new ReceiptFilter(null, null, null, null, "nothing", null, null, null, null),
            new ReceiptFilter(
                null, null, null, null, null, "authorization.revoke", null, null, null),
            new ReceiptFilter(null, null, null, null, null, null, "escalate", null, null),
            new ReceiptFilter(null, null, null, null, null, null, null, t, null),
            new ReceiptFilter(null, null, null, null, null, null, null, null, t),
            new ReceiptFilter(null, "user_1", null, null, "nothing", null, null, null, null),
            new ReceiptFilter("auth_1", "user_1", null, null, null, null, null, null, null));
    for (ReceiptFilter f : filters) {
      for (String after : new String[] {null, "r0000001000"}) {
        List<String> plans = plans(tx -> tx.listReceipts(WS, f, new PageRequest(after, 50)));
        assertThat(plans).as("statements of %s", f).hasSize(2);
        assertFindsTheWindowThroughAnIndex(plans.get(0));
        assertReadsOnlyTheWindow(plans.get(1), "receipt_id");
      }
    }
  }

  @Test
  void aRareValueOfAnUnindexedFilterIsFoundAWindowAtATimeAndNoneIsMissed() {
    ReceiptFilter rare = new ReceiptFilter(null, null, null, null, "rare", null, null, null, null);
    List<String> found = new ArrayList<>();
    int pages = 0;
    String after = null;
    while (true) {
      String from = after;
      Page<ReceiptRow> p = store.read(tx -> tx.listReceipts(WS, rare, new PageRequest(from, 100)));
      pages++;
      p.items().forEach(r -> found.add(r.receiptId()));
      if (!p.hasMore()) {
        break;
      }
      after =
          p.resumeAfter() != null
              ? p.resumeAfter()
              : p.items().get(p.items().size() - 1).receiptId();
    }
    assertThat(found).containsExactly("r0000007000", "r0000014000", "r0000021000", "r0000028000");
    // One page per window, and one that finds no row after the last.
    assertThat(pages).isEqualTo(ROWS / JdbcTx.SCAN_WINDOW + 1);
  }

  // ---- authorizations and escalations

  @Test
  void authorizationFiltersSeekUserIdAndReadAWindowForAgentAndStatus() throws SQLException {
    Instant now = Instant.ofEpochMilli(1);
    List<String> plans =
        plans(
            tx ->
                tx.listAuthorizations(
                    new AuthorizationFilter(WS, "nobody", null, null, now),
                    new PageRequest(null, 50)));
    assertThat(plans).hasSize(1);
    assertSeeks(plans.get(0), "authorizations_by_user", "user_id");
    for (String status : new String[] {"active", "revoked", "expired"}) {
      plans =
          plans(
              tx ->
                  tx.listAuthorizations(
                      new AuthorizationFilter(
                          WS,
                          null,
                          "agent_x",
                          status == null
                              ? null
                              : AuthorizationStatus.of(status).known().orElseThrow(),
                          now),
                      new PageRequest(null, 50)));
      assertThat(plans).as("statements for status %s", status).hasSize(2);
      assertFindsTheWindowThroughAnIndex(plans.get(0));
      assertReadsOnlyTheWindow(plans.get(1), "authorization_id");
    }
  }

  @Test
  void escalationStatusIsCheckedOnAWindowOfRows() throws SQLException {
    Instant now = Instant.ofEpochMilli(1);
    for (String status : new String[] {"pending", "expired", "rejected"}) {
      List<String> plans =
          plans(
              tx ->
                  tx.listEscalations(
                      new EscalationFilter(
                          WS,
                          status == null ? null : EscalationStatus.of(status).known().orElseThrow(),
                          now),
                      new PageRequest(null, 50)));
      assertThat(plans).as("statements for status %s", status).hasSize(2);
      assertFindsTheWindowThroughAnIndex(plans.get(0));
      assertReadsOnlyTheWindow(plans.get(1), "escalation_id");
    }
  }

  // ---- plumbing

  private static ReceiptFilter filter(String authorizationId, String userId) {
    return new ReceiptFilter(authorizationId, userId, null, null, null, null, null, null, null);
  }

  /** A statement a list ran: its SQL and the arguments bound to it, in order. */
  private record Ran(String sql, List<Object[]> binds) {}

  /** Runs {@code list} on {@link #c} and returns the plan of each statement it ran. */
  private List<String> plans(Function<JdbcTx, ?> list) throws SQLException {
    List<Ran> ran = new ArrayList<>();
    List<PreparedStatement> open = new ArrayList<>();
    JdbcTx.Statements statements =
        sql -> {
          PreparedStatement real = c.prepareStatement(sql);
          open.add(real);
          Ran r = new Ran(sql, new ArrayList<>());
          ran.add(r);
          return recording(real, r);
        };
    JdbcTx tx =
        dialect() == Dialect.POSTGRES
            ? new PostgresTx(statements, MasterKey.random(), new ObjectMapper(), new HashMap<>())
            : new SqliteTx(
                statements, MasterKey.random(), new ObjectMapper(), new HashMap<>(), null);
    try {
      list.apply(tx);
    } finally {
      for (PreparedStatement ps : open) {
        ps.close();
      }
    }
    List<String> plans = new ArrayList<>();
    for (Ran r : ran) {
      try (PreparedStatement ps = c.prepareStatement(explain(r.sql()))) {
        for (Object[] bind : r.binds()) {
          invoke(ps, (Method) bind[0], (Object[]) bind[1]);
        }
        StringBuilder plan = new StringBuilder();
        try (ResultSet rs = ps.executeQuery()) {
          int columns = rs.getMetaData().getColumnCount();
          while (rs.next()) {
            plan.append(rs.getString(columns)).append('\n');
          }
        }
        plans.add(plan.toString());
      }
    }
    return plans;
  }

  /** A statement that records every {@code set...} call before passing it on. */
  private static PreparedStatement recording(PreparedStatement real, Ran ran) {
    return (PreparedStatement)
        Proxy.newProxyInstance(
            PreparedStatement.class.getClassLoader(),
            new Class<?>[] {PreparedStatement.class},
            (proxy, method, args) -> {
              if (method.getName().startsWith("set") && args != null && args.length >= 2) {
                ran.binds().add(new Object[] {method, args.clone()});
              }
              return invoke(real, method, args);
            });
  }

  private static Object invoke(Object target, Method method, Object[] args) throws SQLException {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof SQLException s) {
        throw s;
      }
      throw new IllegalStateException(e.getCause());
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }
}
