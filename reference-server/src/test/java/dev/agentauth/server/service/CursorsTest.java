package dev.agentauth.server.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.server.store.Page;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * List cursors: opaque, bound to the list and filters they were issued for, and refused (400 naming
 * {@code cursor}) when sent with other filters or when the server did not issue them.
 */
class CursorsTest {
  private static final String FILTERS = "receipts|user_id=user_1|decision=deny";

  private static String base64Url(String raw) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(raw.getBytes(StandardCharsets.UTF_8));
  }

  private static String raw(String cursor) {
    return new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
  }

  private static void assertRefusedNamingCursor(String cursor, String filters, String message) {
    assertThatThrownBy(() -> Cursors.decode(cursor, filters))
        .isInstanceOfSatisfying(
            ServiceException.class,
            e -> {
              assertThat(e.status()).isEqualTo(400);
              assertThat(e.code()).isEqualTo("invalid_request");
              assertThat(e.errors())
                  .containsExactly(new ServiceException.FieldProblem("cursor", message));
            });
  }

  @Test
  void aCursorDecodesToTheKeyItWasIssuedAfter() {
    String cursor = Cursors.encode(FILTERS, "01JDQ4ZK3M0000000000000042");

    assertThat(Cursors.decode(cursor, FILTERS)).isEqualTo("01JDQ4ZK3M0000000000000042");
  }

  @Test
  void noCursorStartsAtTheBeginning() {
    assertThat(Cursors.decode(null, FILTERS)).isNull();
  }

  @Test
  void aCursorIsUnpaddedBase64UrlThatDoesNotShowTheFilters() {
    String cursor = Cursors.encode(FILTERS, "key|with/odd+chars");

    assertThat(cursor).matches("[A-Za-z0-9_-]+");
    assertThat(raw(cursor))
        .startsWith("v1|")
        .endsWith("|key|with/odd+chars")
        .doesNotContain("user_1");
    assertThat(Cursors.decode(cursor, FILTERS)).isEqualTo("key|with/odd+chars");
  }

  @Test
  void aCursorSentWithOtherFiltersIs400NamingCursor() {
    String cursor = Cursors.encode(FILTERS, "k1");

    assertRefusedNamingCursor(
        cursor,
        "receipts|user_id=user_2|decision=deny",
        "was issued for other filters; repeat the same filters or start without a cursor");
    assertRefusedNamingCursor(
        cursor,
        "authorizations|user_id=user_1|decision=deny",
        "was issued for other filters; repeat the same filters or start without a cursor");
  }

  @Test
  void aCursorWhoseFingerprintWasAlteredIsRefused() {
    String[] parts = raw(Cursors.encode(FILTERS, "k1")).split("\\|", 3);
    char first = parts[1].charAt(0);
    String tampered =
        base64Url(
            parts[0] + "|" + (first == 'A' ? 'B' : 'A') + parts[1].substring(1) + "|" + parts[2]);

    assertRefusedNamingCursor(
        tampered,
        FILTERS,
        "was issued for other filters; repeat the same filters or start without a cursor");
  }

  @Test
  void somethingTheServerDidNotIssueIsRefused() {
    String notIssued = "is not a cursor issued by this server";
    String fingerprint = raw(Cursors.encode(FILTERS, "k1")).split("\\|", 3)[1];

    assertRefusedNamingCursor("not base64!", FILTERS, notIssued);
    assertRefusedNamingCursor(base64Url("v2|" + fingerprint + "|k1"), FILTERS, notIssued);
    assertRefusedNamingCursor(base64Url("v1|" + fingerprint), FILTERS, notIssued);
    assertRefusedNamingCursor(base64Url("v1|" + fingerprint + "|"), FILTERS, notIssued);
    assertRefusedNamingCursor("", FILTERS, notIssued);
  }

  @Test
  void theNextCursorOfALastPageIsNull() {
    Page<String> last = new Page<>(List.of("a", "b"), false);

    assertThat(Cursors.next(FILTERS, last, Function.identity())).isNull();
  }

  @Test
  void theNextCursorResumesAfterThePagesLastRow() {
    Page<String> page = new Page<>(List.of("a", "b", "c"), true);

    String next = Cursors.next(FILTERS, page, row -> "key-" + row);

    assertThat(Cursors.decode(next, FILTERS)).isEqualTo("key-c");
  }

  @Test
  void theNextCursorOfAPageThatStoppedExaminingRowsResumesWhereItStopped() {
    Page<String> page = new Page<>(List.of("a"), true, "key-z");
    Page<String> empty = new Page<>(List.of(), true, "key-y");

    assertThat(Cursors.decode(Cursors.next(FILTERS, page, row -> "key-" + row), FILTERS))
        .isEqualTo("key-z");
    assertThat(Cursors.decode(Cursors.next(FILTERS, empty, row -> "key-" + row), FILTERS))
        .isEqualTo("key-y");
  }
}
