package dev.agentauth.server.http;

import dev.agentauth.server.service.Caller;
import dev.agentauth.server.service.ErrorCode;
import dev.agentauth.server.service.ServiceContext;
import io.javalin.http.Context;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/** Liveness, readiness and metrics: public, unauthenticated, and cheap. */
record HealthHandlers(ServiceContext ctx, ProblemWriter problems, PrometheusMeterRegistry metrics) {

  /** Liveness: 503 once a thread the server cannot work without has died. */
  void live(Context c, Caller none) {
    String dead = deadThreads();
    if (dead == null) {
      c.contentType(ResponseWriter.JSON).result("{\"status\":\"ok\"}");
    } else {
      problems.write(c, ErrorCode.NOT_LIVE, dead + "; restart the server");
    }
  }

  /** Readiness: live, and the store answers. */
  void ready(Context c, Caller none) {
    String dead = deadThreads();
    if (dead != null) {
      problems.write(c, ErrorCode.NOT_READY, dead);
      return;
    }
    boolean ok;
    try {
      ok = ctx.store().isReachable();
    } catch (RuntimeException e) {
      ok = false;
    }
    if (ok) {
      c.contentType(ResponseWriter.JSON).result("{\"status\":\"ready\"}");
    } else {
      problems.write(c, ErrorCode.NOT_READY, "the store is not reachable");
    }
  }

  void metrics(Context c, Caller none) {
    c.contentType("text/plain; version=0.0.4; charset=utf-8").result(metrics.scrape());
  }

  /** What has died, or null when the store's threads and the signer threads are alive. */
  private String deadThreads() {
    if (!ctx.store().isLive()) {
      return "the store's writer thread has stopped";
    }
    if (!ctx.signer().isLive()) {
      return "a receipt signer thread has stopped";
    }
    return null;
  }
}
