package dev.agentauth.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.model.Decision;
import dev.agentauth.model.ReceiptSummary;
import java.util.Iterator;
import org.junit.jupiter.api.Test;

/** Auto-paging walks every page lazily, following next_cursor with the same filters. */
class PagingTest extends MockServerSupport {

  private final ReceiptListParams byAuthorization =
      ReceiptListParams.builder().authorizationId("auth_01").limit(2).build();

  @Test
  void iterableWalksEveryPageFollowingTheCursorWithTheSameFilters() throws Exception {
    server.enqueue(fixture(200, "receipt-page-1.json"));
    server.enqueue(fixture(200, "receipt-page-2.json"));

    int count = 0;
    for (ReceiptSummary s : client.receipts().listAutoPaging(byAuthorization)) {
      assertThat(s.authorizationId()).isEqualTo("auth_01");
      count++;
    }

    assertThat(count).isEqualTo(3);
    assertThat(take().getTarget()).isEqualTo("/v1/receipts?authorization_id=auth_01&limit=2");
    assertThat(take().getTarget())
        .isEqualTo("/v1/receipts?authorization_id=auth_01&cursor=cur_2&limit=2");
  }

  @Test
  void streamIsLazyAndFetchesOnlyThePagesItNeeds() {
    server.enqueue(fixture(200, "receipt-page-1.json"));
    server.enqueue(fixture(200, "receipt-page-2.json"));

    ReceiptSummary first =
        client.receipts().listAutoPaging(byAuthorization).stream().findFirst().orElseThrow();

    assertThat(first.decision()).isEqualTo(Decision.AUTHORIZATION_GRANTED);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void streamCountsAcrossPages() {
    server.enqueue(fixture(200, "receipt-page-1.json"));
    server.enqueue(fixture(200, "receipt-page-2.json"));

    long unsigned =
        client.receipts().listAutoPaging(byAuthorization).stream().filter(s -> !s.signed()).count();

    assertThat(unsigned).isEqualTo(1);
  }

  @Test
  void nothingIsFetchedUntilIterationStarts() {
    AutoPagingIterable<ReceiptSummary> all = client.receipts().listAutoPaging(byAuthorization);

    assertThat(server.getRequestCount()).isZero();
    server.enqueue(fixture(200, "receipt-page-2.json"));
    assertThat(all.iterator().hasNext()).isTrue();
  }

  @Test
  void hasMoreWithoutCursorIsAMalformedResponse() {
    server.enqueue(json(200, "{\"tombstones\":[],\"has_more\":true,\"next_cursor\":null}"));

    Iterator<?> it = client.tombstones().listAutoPaging(ListParams.none()).iterator();

    assertThatThrownBy(it::hasNext)
        .isInstanceOf(MalformedResponseException.class)
        .hasMessageContaining("has_more=true without a next_cursor");
  }

  @Test
  void pageFailuresSurfaceFromTheIterator() {
    server.enqueue(fixture(200, "receipt-page-1.json"));
    server.enqueue(fixture(400, "problem-invalid-request.json"));

    Iterator<ReceiptSummary> it = client.receipts().listAutoPaging(byAuthorization).iterator();
    it.next();
    it.next();

    assertThatThrownBy(it::hasNext).isInstanceOf(BadRequestException.class);
  }

  @Test
  void everyListEndpointAutoPages() {
    server.enqueue(fixture(200, "authorization-page.json"));
    server.enqueue(fixture(200, "bundle-page.json"));
    server.enqueue(fixture(200, "escalation-page.json"));
    server.enqueue(fixture(200, "tombstone-page.json"));

    assertThat(
            client
                .authorizations()
                .listAutoPaging(AuthorizationListParams.builder().build())
                .stream()
                .count())
        .isEqualTo(1);
    assertThat(client.bundles().listAutoPaging(ListParams.none()).stream().count()).isEqualTo(1);
    assertThat(client.escalations().listAutoPaging(EscalationListParams.none()).stream().count())
        .isEqualTo(1);
    assertThat(client.tombstones().listAutoPaging(ListParams.none()).stream().count()).isEqualTo(1);
  }
}
