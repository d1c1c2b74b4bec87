package dev.agentauth.model;

import static dev.agentauth.model.WireJson.assertRoundTrip;
import static dev.agentauth.model.WireJson.read;
import static dev.agentauth.model.WireJson.write;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ProblemJsonTest {

  @Test
  void validationProblemCarriesFieldErrors() {
    assertRoundTrip(
        """
        {"type": "/errors/invalid_request", "title": "Invalid request", "status": 400,
         "detail": "2 fields are invalid", "code": "invalid_request", "request_id": "req_1",
         "errors": [{"field": "scopes[1].name", "message": "expected 1-200 characters, found 0"},
                    {"field": "expires_at", "message": "expected a future timestamp"}]}
        """,
        Problem.class,
        new Problem(
            "/errors/invalid_request",
            "Invalid request",
            400,
            "2 fields are invalid",
            "invalid_request",
            "req_1",
            List.of(
                new FieldError("scopes[1].name", "expected 1-200 characters, found 0"),
                new FieldError("expires_at", "expected a future timestamp"))));
  }

  @Test
  void otherProblemsOmitErrorsAndAbsentDetail() {
    Problem problem =
        new Problem("/errors/not_found", "Not found", 404, null, "not_found", "req_2", null);
    String json =
        "{\"type\":\"/errors/not_found\",\"title\":\"Not found\",\"status\":404,"
            + "\"code\":\"not_found\",\"request_id\":\"req_2\"}";
    assertThat(write(problem)).isEqualTo(json);
    assertThat(read(json, Problem.class)).isEqualTo(problem);
  }
}
