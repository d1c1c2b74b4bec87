package dev.agentauth.model;

import static dev.agentauth.model.WireJson.assertRoundTrip;
import static dev.agentauth.model.WireJson.write;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BundleJsonTest {

  private static final Instant CREATED = Instant.parse("2026-11-22T10:15:30.123Z");

  @Test
  void requestRoundTripsWithEveryMember() {
    assertRoundTrip(
        """
        {"id": "support-bot", "agent_id": "agent_support",
         "scopes": [{"name": "tickets.read"}, {"name": "tickets.close",
                     "constraints": {"resource_pattern": "ticket:*"}}],
         "requires_confirm_for": ["tickets.close"], "requires_escalation_for": [],
         "escalation_targets": {}, "default_expiry_days": 30, "description": "Support agent"}
        """,
        BundleRequest.class,
        new BundleRequest(
            "support-bot",
            "agent_support",
            List.of(
                ScopeEntry.of("tickets.read"),
                new ScopeEntry("tickets.close", new ScopeConstraints(null, "ticket:*", null))),
            List.of("tickets.close"),
            List.of(),
            Map.of(),
            30L,
            "Support agent"));
  }

  @Test
  void requestOmitsAbsentMembersSoPutCanOmitTheId() {
    BundleRequest edit =
        new BundleRequest(
            null,
            "agent_support",
            List.of(ScopeEntry.of("tickets.read")),
            null,
            null,
            null,
            null,
            null);
    assertThat(write(edit))
        .isEqualTo("{\"agent_id\":\"agent_support\",\"scopes\":[{\"name\":\"tickets.read\"}]}");
  }

  @Test
  void activeBundleWritesNullOptionalsAndDeletedAt() {
    Bundle bundle =
        new Bundle(
            "support-bot",
            "agent_support",
            List.of(ScopeEntry.of("tickets.read")),
            null,
            null,
            null,
            null,
            null,
            BundleStatus.ACTIVE,
            CREATED,
            CREATED,
            null);
    String json =
        "{\"id\":\"support-bot\",\"agent_id\":\"agent_support\","
            + "\"scopes\":[{\"name\":\"tickets.read\"}],\"requires_confirm_for\":[],"
            + "\"requires_escalation_for\":[],\"escalation_targets\":{},"
            + "\"default_expiry_days\":null,\"description\":null,\"status\":\"active\","
            + "\"created_at\":\"2026-11-22T10:15:30.123Z\","
            + "\"updated_at\":\"2026-11-22T10:15:30.123Z\",\"deleted_at\":null}";
    assertThat(write(bundle)).isEqualTo(json);
    assertRoundTrip(json, Bundle.class, bundle);
  }

  @Test
  void deletedBundleCarriesDeletedAt() {
    Bundle deleted =
        assertRoundTrip(
            """
            {"id": "b", "agent_id": "a", "scopes": [{"name": "s"}], "requires_confirm_for": [],
             "requires_escalation_for": ["s"], "escalation_targets": {"s": "security"},
             "default_expiry_days": 7, "description": "d", "status": "deleted",
             "created_at": "2026-11-22T10:15:30.123Z", "updated_at": "2026-11-22T10:15:30.123Z",
             "deleted_at": "2026-11-24T00:00:00.000Z"}
            """,
            Bundle.class,
            new Bundle(
                "b",
                "a",
                List.of(ScopeEntry.of("s")),
                List.of(),
                List.of("s"),
                Map.of("s", "security"),
                7L,
                "d",
                BundleStatus.DELETED,
                CREATED,
                CREATED,
                Instant.parse("2026-11-24T00:00:00Z")));
    assertThat(deleted.status().known()).contains(BundleStatus.Known.DELETED);
  }

  @Test
  void bundlePageRoundTrips() {
    assertRoundTrip(
        "{\"bundles\":[],\"has_more\":false,\"next_cursor\":null}",
        BundlePage.class,
        new BundlePage(null, false, null));
  }
}
