package dev.agentauth.server.signing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WorkspaceQueuesTest {
  private static final Instant AT = Instant.parse("2026-11-22T10:00:00Z");

  private static WorkspaceQueues.Item item(String ws, int n, int payloadChars) {
    return new WorkspaceQueues.Item(ws, ws + "-" + n, AT, "x".repeat(payloadChars), 0);
  }

  private static List<String> take(WorkspaceQueues q, int max) throws InterruptedException {
    List<WorkspaceQueues.Item> batch = new ArrayList<>();
    q.drainTo(batch, max, 0, TimeUnit.NANOSECONDS);
    return batch.stream().map(WorkspaceQueues.Item::receiptId).toList();
  }

  @Test
  void workspacesAreServedInTurnOneReceiptEach() throws InterruptedException {
    WorkspaceQueues q = new WorkspaceQueues(1_000, 1 << 20, 1_000, 1 << 20);
    for (int i = 0; i < 100; i++) {
      assertThat(q.offer(item("flood", i, 10))).isTrue();
    }
    q.offer(item("quiet", 0, 10));
    q.offer(item("quiet", 1, 10));
    q.offer(item("third", 0, 10));

    // The flood queued first, yet each workspace gets one receipt per turn.
    assertThat(take(q, 5)).containsExactly("flood-0", "quiet-0", "third-0", "flood-1", "quiet-1");
    assertThat(take(q, 3)).containsExactly("flood-2", "flood-3", "flood-4");
  }

  @Test
  void theTurnCarriesOverFromOneBatchToTheNext() throws InterruptedException {
    WorkspaceQueues q = new WorkspaceQueues(1_000, 1 << 20, 1_000, 1 << 20);
    for (int i = 0; i < 4; i++) {
      q.offer(item("a", i, 10));
      q.offer(item("b", i, 10));
      q.offer(item("c", i, 10));
    }
    assertThat(take(q, 2)).containsExactly("a-0", "b-0");
    assertThat(take(q, 2)).containsExactly("c-0", "a-1");
    // A workspace that arrives joins the end of the turn.
    q.offer(item("d", 0, 10));
    assertThat(take(q, 4)).containsExactly("b-1", "c-1", "a-2", "d-0");
  }

  @Test
  void aReceiptQueuedAfterAFloodIsTakenWithinOneTurnOfTheWorkspacesQueued()
      throws InterruptedException {
    WorkspaceQueues q = new WorkspaceQueues(20_000, 64L << 20, 20_000, 64L << 20);
    for (int i = 0; i < 10_000; i++) {
      q.offer(item("flood", i, 10));
    }
    assertThat(take(q, 64)).hasSize(64).allMatch(id -> id.startsWith("flood-"));
    q.offer(item("bystander", 0, 10));
    // Behind 9,936 receipts of the flood, the bystander's is in the next batch, second.
    assertThat(take(q, 64)).element(1).isEqualTo("bystander-0");
  }

  @Test
  void oneWorkspaceTakesAtMostItsShareSoAnotherStillFits() throws InterruptedException {
    WorkspaceQueues q = new WorkspaceQueues(8, 1 << 20, 2, 1 << 20);
    assertThat(q.offer(item("flood", 0, 10))).isTrue();
    assertThat(q.offer(item("flood", 1, 10))).isTrue();
    assertThat(q.offer(item("flood", 2, 10))).as("its share is 2").isFalse();
    assertThat(q.room("flood")).isZero();
    assertThat(q.room("other")).isEqualTo(2);
    assertThat(q.offer(item("other", 0, 10))).isTrue();
    assertThat(q.size()).isEqualTo(3);
    assertThat(q.size("flood")).isEqualTo(2);
    take(q, 1);
    assertThat(q.offer(item("flood", 2, 10))).as("room again once one was taken").isTrue();
  }

  @Test
  void bytesAreBoundedInAllAndPerWorkspaceButAnEmptyQueueTakesOneReceipt()
      throws InterruptedException {
    long one = item("a", 0, 1_000).bytes();
    WorkspaceQueues q = new WorkspaceQueues(100, 3 * one, 100, one + 10);
    assertThat(q.offer(item("a", 0, 1_000))).isTrue();
    assertThat(q.offer(item("a", 1, 1_000))).as("its share of bytes is spent").isFalse();
    assertThat(q.offer(item("b", 0, 2_000)))
        .as("an empty queue of a workspace takes one receipt over its share")
        .isTrue();
    assertThat(q.bytes()).isEqualTo(one + item("b", 0, 2_000).bytes());
    assertThat(q.offer(item("c", 0, 1_000))).as("over the bytes of all").isFalse();
    take(q, 2);
    assertThat(q.bytes()).isZero();
    assertThat(q.size()).isZero();
    assertThat(q.offer(item("c", 0, 50_000)))
        .as("all queues empty: one receipt over every bound fits")
        .isTrue();
  }

  @Test
  void drainToReturnsNothingWhenEmptyWithoutWaiting() throws InterruptedException {
    WorkspaceQueues q = new WorkspaceQueues(10, 1 << 20, 10, 1 << 20);
    List<WorkspaceQueues.Item> batch = new ArrayList<>();
    assertThat(q.drainTo(batch, 10, 0, TimeUnit.NANOSECONDS)).isZero();
    assertThat(batch).isEmpty();
  }

  @Test
  void boundsMustBePositive() {
    assertThatThrownBy(() -> new WorkspaceQueues(0, 1, 1, 1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
