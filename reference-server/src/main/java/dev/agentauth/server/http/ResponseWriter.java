package dev.agentauth.server.http;

import dev.agentauth.server.service.MutationRunner;
import dev.agentauth.server.service.Outcome;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Writes successful JSON answers: a read's outcome or a mutation's response. */
final class ResponseWriter {
  static final String JSON = "application/json";

  private final MutationRunner runner;

  ResponseWriter(MutationRunner runner) {
    this.runner = runner;
  }

  /** Renders {@code o} (receipts shown as pending) and sends it. */
  void outcome(Context c, Outcome o) {
    send(c, o.status(), runner.render(o));
  }

  /** Sends a mutation's answer, marking a replayed one. */
  void mutation(Context c, MutationRunner.Response r) {
    if (r.replayed()) {
      c.header("Idempotent-Replayed", "true");
    }
    send(c, r.status(), r.body());
  }

  /** Writes a complete response body in one piece, bypassing Javalin's result stream copy. */
  static void send(Context c, int status, byte[] bytes) {
    c.status(status).contentType(JSON);
    c.res().setContentLength(bytes.length);
    try {
      c.res().getOutputStream().write(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException("client went away", e);
    }
  }
}
