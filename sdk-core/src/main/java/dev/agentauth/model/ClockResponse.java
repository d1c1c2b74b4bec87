package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/** The body of {@code POST /admin/v1/clock}: the server's time after the move. */
public record ClockResponse(@JsonProperty("now") Instant now) {}
