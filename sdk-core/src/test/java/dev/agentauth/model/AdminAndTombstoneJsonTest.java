package dev.agentauth.model;

import static dev.agentauth.model.WireJson.assertRoundTrip;
import static dev.agentauth.model.WireJson.write;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class AdminAndTombstoneJsonTest {

  private static final Instant CREATED = Instant.parse("2026-11-22T10:15:30.123Z");

  @Test
  void tombstoneRequestOmitsAbsentReason() {
    assertRoundTrip(
        "{\"resource\":\"file:42\"}",
        TombstoneRequest.class,
        new TombstoneRequest("file:42", null));
    assertRoundTrip(
        "{\"resource\":\"file:42\",\"reason\":\"legal hold\"}",
        TombstoneRequest.class,
        new TombstoneRequest("file:42", "legal hold"));
  }

  @Test
  void tombstoneWritesNullReason() {
    Tombstone tombstone = new Tombstone("file:42", null, CREATED);
    assertThat(write(tombstone))
        .isEqualTo(
            "{\"resource\":\"file:42\",\"resource_pattern\":null,\"reason\":null,"
                + "\"created_at\":\"2026-11-22T10:15:30.123Z\"}");
    assertRoundTrip(
        "{\"tombstones\":[{\"resource\":\"file:42\",\"resource_pattern\":null,\"reason\":null,"
            + "\"created_at\":\"2026-11-22T10:15:30.123Z\"}],\"has_more\":false,"
            + "\"next_cursor\":null}",
        TombstonePage.class,
        new TombstonePage(List.of(tombstone), false, null));
  }

  @Test
  void patternTombstonesCarryTheirPattern() {
    assertRoundTrip(
        "{\"resource_pattern\":\"db/prod*\",\"reason\":\"prod\"}",
        TombstoneRequest.class,
        TombstoneRequest.pattern("db/prod*", "prod"));
    assertRoundTrip(
        "{\"resource\":null,\"resource_pattern\":\"db/prod*\",\"reason\":null,"
            + "\"created_at\":\"2026-11-22T10:15:30.123Z\"}",
        Tombstone.class,
        new Tombstone(null, "db/prod*", null, CREATED));
  }

  @Test
  void workspaceAdminBodiesRoundTrip() {
    assertRoundTrip(
        "{\"workspace_id\":\"ws_1\",\"plan\":\"pro\"}",
        CreateWorkspaceRequest.class,
        new CreateWorkspaceRequest("ws_1", Plan.PRO));
    assertRoundTrip(
        "{\"workspace_id\":\"ws_1\",\"plan\":\"free\",\"created_at\":\"2026-11-22T10:15:30.123Z\"}",
        Workspace.class,
        new Workspace("ws_1", Plan.FREE, CREATED));
    assertRoundTrip(
        "{\"workspace_id\":\"ws_1\",\"api_key\":\"sk_abc\"}",
        ApiKeyResponse.class,
        new ApiKeyResponse("ws_1", "sk_abc"));
  }

  @Test
  void apiKeyIsRedactedFromToString() {
    assertThat(new ApiKeyResponse("ws_1", "sk_secret").toString())
        .doesNotContain("sk_secret")
        .contains("ws_1");
  }

  @Test
  void clockRequestCarriesEitherAdvanceOrSet() {
    assertRoundTrip(
        "{\"advance_seconds\":86400}", ClockRequest.class, ClockRequest.advance(86_400));
    assertRoundTrip(
        "{\"set\":\"2026-11-23T00:00:00.000Z\"}",
        ClockRequest.class,
        ClockRequest.setTo(Instant.parse("2026-11-23T00:00:00Z")));
    assertRoundTrip(
        "{\"now\":\"2026-11-23T00:00:00.000Z\"}",
        ClockResponse.class,
        new ClockResponse(Instant.parse("2026-11-23T00:00:00Z")));
  }
}
