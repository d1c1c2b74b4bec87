package dev.agentauth.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.server.service.ErrorCode;
import dev.agentauth.server.service.ServiceException;
import io.javalin.http.HttpResponseException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every error becomes an RFC 9457 problem document: {@code application/problem+json} with {@code
 * type}, {@code title}, {@code status}, {@code detail}, {@code code}, {@code request_id} (the
 * request's X-Request-Id) and, on validation failures, {@code errors}; plus the headers some codes
 * carry. Called directly, on a {@link FakeContext}.
 */
class ProblemWriterTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ProblemWriter problems = new ProblemWriter(AgentAuthJson.newObjectMapper());

  /** A request whose id the reader has set to {@code req_1}. */
  private static FakeContext request() {
    FakeContext c = new FakeContext("POST", "/v1/check", null).header("X-Request-Id", "req_1");
    new RequestReader().start(c.context());
    return c;
  }

  private static JsonNode body(FakeContext c) throws Exception {
    return JSON.readTree(c.resultText());
  }

  @Test
  void aValidationFailureIsAProblemListingEachField() throws Exception {
    FakeContext c = request();

    problems.write(
        c.context(),
        ServiceException.invalid(
            List.of(
                new ServiceException.FieldProblem("scopes[1].name", "must not start with '.'"),
                new ServiceException.FieldProblem("user_id", "is required"))));

    assertThat(c.status()).isEqualTo(400);
    assertThat(c.contentType()).isEqualTo("application/problem+json");
    assertThat(body(c))
        .isEqualTo(
            JSON.readTree(
                "{\"type\":\"/errors/invalid_request\",\"title\":\"Bad Request\",\"status\":400,"
                    + "\"detail\":\"2 fields are invalid; see errors\",\"code\":\"invalid_request\","
                    + "\"request_id\":\"req_1\",\"errors\":["
                    + "{\"field\":\"scopes[1].name\",\"message\":\"must not start with '.'\"},"
                    + "{\"field\":\"user_id\",\"message\":\"is required\"}]}"));
  }

  @Test
  void aProblemWithoutFieldErrorsHasNoErrorsMember() throws Exception {
    FakeContext c = request();

    problems.write(c.context(), ErrorCode.NOT_FOUND, "authorization not found");

    JsonNode body = body(c);
    assertThat(c.status()).isEqualTo(404);
    assertThat(body.has("errors")).isFalse();
    assertThat(body.get("type").asText()).isEqualTo("/errors/not_found");
    assertThat(body.get("title").asText()).isEqualTo("Not Found");
    assertThat(body.get("code").asText()).isEqualTo("not_found");
    assertThat(body.get("detail").asText()).isEqualTo("authorization not found");
    assertThat(body.get("request_id").asText()).isEqualTo(c.responseHeader("X-Request-Id"));
  }

  @Test
  void anUnauthenticatedProblemAsksForABearerToken() {
    FakeContext c = request();

    problems.write(c.context(), ErrorCode.UNAUTHENTICATED, "no API key");

    assertThat(c.status()).isEqualTo(401);
    assertThat(c.responseHeader("WWW-Authenticate")).isEqualTo("Bearer");
  }

  @Test
  void aProblemWithARetryTimeSaysRetryAfter() throws Exception {
    FakeContext limited = request();
    FakeContext unavailable = request();

    problems.write(limited.context(), ServiceException.rateLimited(7));
    problems.write(unavailable.context(), ServiceException.unavailable("shedding load", 1));

    assertThat(limited.status()).isEqualTo(429);
    assertThat(limited.responseHeader("Retry-After")).isEqualTo("7");
    assertThat(body(limited).get("title").asText()).isEqualTo("Too Many Requests");
    assertThat(unavailable.status()).isEqualTo(503);
    assertThat(unavailable.responseHeader("Retry-After")).isEqualTo("1");
    assertThat(body(unavailable).get("code").asText()).isEqualTo("unavailable");
  }

  @Test
  void aProblemAnsweredBeforeTheBodyWasReadClosesTheConnection() {
    FakeContext unread = request().body("{\"a\":1}");
    FakeContext read = request().body("{\"a\":1}");
    RequestReader.body(read.context());
    FakeContext bodiless = request();

    problems.write(unread.context(), ErrorCode.FORBIDDEN, "role agent may not call this");
    problems.write(read.context(), ErrorCode.FORBIDDEN, "role agent may not call this");
    problems.write(bodiless.context(), ErrorCode.FORBIDDEN, "role agent may not call this");

    assertThat(unread.responseHeader("Connection")).isEqualTo("close");
    assertThat(read.responseHeader("Connection")).isNull();
    assertThat(bodiless.responseHeader("Connection")).isNull();
  }

  @Test
  void javalinsOwnErrorsMapToTheirCodes() {
    assertThat(ProblemWriter.fromJavalin(new HttpResponseException(404)).errorCode())
        .isEqualTo(ErrorCode.NOT_FOUND);
    assertThat(ProblemWriter.fromJavalin(new HttpResponseException(405)).errorCode())
        .isEqualTo(ErrorCode.METHOD_NOT_ALLOWED);
    assertThat(ProblemWriter.fromJavalin(new HttpResponseException(413)).errorCode())
        .isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE);
    ServiceException other = ProblemWriter.fromJavalin(new HttpResponseException(400, "bad"));
    assertThat(other.errorCode()).isEqualTo(ErrorCode.INVALID_REQUEST);
    assertThat(other.detail()).isEqualTo("bad");
  }

  @Test
  void aServerFailureShowsNothingOfItsCause() {
    ServiceException fromJavalin =
        ProblemWriter.fromJavalin(new HttpResponseException(502, "upstream at 10.0.0.7 failed"));

    assertThat(fromJavalin.errorCode()).isEqualTo(ErrorCode.INTERNAL_ERROR);
    assertThat(fromJavalin.detail())
        .isEqualTo("the server failed to process the request")
        .doesNotContain("10.0.0.7");
    assertThat(ProblemWriter.internal().status()).isEqualTo(500);
  }

  @Test
  void titlesAreRfc9110sStatusNamesAndAnyOtherServerErrorIsInternal() {
    assertThat(ProblemWriter.title(413)).isEqualTo("Content Too Large");
    assertThat(ProblemWriter.title(431)).isEqualTo("Request Header Fields Too Large");
    assertThat(ProblemWriter.title(505)).isEqualTo("HTTP Version Not Supported");
    assertThat(ProblemWriter.title(502)).isEqualTo("Internal Server Error");
  }

  @Test
  void anErrorThrownByAHandlerIsWrittenByHandAsA500Problem() throws Exception {
    FakeContext c = request();

    ProblemWriter.writeError(c.response(), new AssertionError("secret detail"));

    JsonNode body = body(c);
    assertThat(c.status()).isEqualTo(500);
    assertThat(c.contentType()).isEqualTo("application/problem+json");
    assertThat(body)
        .isEqualTo(
            JSON.readTree(
                "{\"type\":\"/errors/internal_error\",\"title\":\"Internal Server Error\","
                    + "\"status\":500,\"detail\":\"the server failed to process the request\","
                    + "\"code\":\"internal_error\",\"request_id\":\"req_1\"}"));
  }
}
