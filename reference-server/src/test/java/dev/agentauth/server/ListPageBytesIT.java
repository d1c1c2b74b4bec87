package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.server.ServerHarness.Resp;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * List pages are bounded by bytes as well as rows: a page of large items stops before 1 MiB with
 * {@code has_more} and a cursor, and following the cursors reaches every row exactly once.
 */
class ListPageBytesIT {
  private static final int PAGE_BYTES = 1 << 20;

  private ServerHarness h;

  @BeforeEach
  void start() {
    h = ServerHarness.start();
  }

  @AfterEach
  void stop() {
    h.close();
  }

  /** Two scopes of 100 initiators of 256 characters: ~51 KiB, under the 64 KiB rule-set cap. */
  private ArrayNode largeScopes(int n) {
    ArrayNode scopes = h.mapper.createArrayNode();
    for (int s = 0; s < 2; s++) {
      ArrayNode ai =
          scopes
              .addObject()
              .put("name", "s" + s)
              .putObject("constraints")
              .putArray("allowed_initiators");
      for (int j = 0; j < 100; j++) {
        String prefix = n + "-" + s + "-" + j + "-";
        ai.add(prefix + "x".repeat(256 - prefix.length()));
      }
    }
    return scopes;
  }

  /** Every item id of a listing followed to its end, asserting each page's size and shape. */
  private List<String> listAll(String path, String member, String idField, List<Integer> sizes) {
    List<String> ids = new ArrayList<>();
    String cursor = null;
    do {
      Resp r = h.get(path + "?limit=100" + (cursor == null ? "" : "&cursor=" + cursor));
      assertThat(r.status()).as(r.raw()).isEqualTo(200);
      assertThat(r.raw().getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(PAGE_BYTES);
      JsonNode items = r.body().path(member);
      assertThat(items.size()).isPositive();
      sizes.add(items.size());
      items.forEach(i -> ids.add(i.path(idField).asText()));
      boolean more = r.body().path("has_more").asBoolean();
      assertThat(r.body().path("next_cursor").isNull()).isEqualTo(!more);
      cursor = more ? r.body().path("next_cursor").asText() : null;
    } while (cursor != null);
    return ids;
  }

  @Test
  void authorizationPagesOfLargeRowsStayUnderOneMiBAndReachEveryRowOnce() {
    Set<String> created = new LinkedHashSet<>();
    for (int i = 0; i < 40; i++) {
      ObjectNode body = h.mapper.createObjectNode();
      body.put("user_id", "user_1").put("agent_id", "agent_1");
      body.put("expires_at", CheckFixtures.EXPIRES);
      body.set("scopes", largeScopes(i));
      body.putObject("metadata").put("blob", "m".repeat(15_000));
      Resp r = h.post("/v1/authorizations", body);
      assertThat(r.status()).as(r.raw()).isEqualTo(201);
      created.add(r.body().path("authorization_id").asText());
    }
    List<Integer> sizes = new ArrayList<>();
    List<String> listed =
        listAll("/v1/authorizations", "authorizations", "authorization_id", sizes);
    assertThat(listed).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(created);
    assertThat(sizes.size()).isGreaterThan(1);
    assertThat(sizes.get(0)).isLessThan(40);
  }

  @Test
  void bundlePagesOfLargeRowsStayUnderOneMiBAndReachEveryRowOnce() {
    Set<String> created = new LinkedHashSet<>();
    for (int i = 0; i < 30; i++) {
      ObjectNode body = h.mapper.createObjectNode();
      body.put("id", "bundle-" + i).put("agent_id", "agent_1");
      body.set("scopes", largeScopes(i));
      Resp r = h.post("/v1/agent-scope-bundles", body);
      assertThat(r.status()).as(r.raw()).isEqualTo(201);
      created.add("bundle-" + i);
    }
    List<Integer> sizes = new ArrayList<>();
    List<String> listed = listAll("/v1/agent-scope-bundles", "bundles", "id", sizes);
    assertThat(listed).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(created);
    assertThat(sizes.size()).isGreaterThan(1);
  }
}
