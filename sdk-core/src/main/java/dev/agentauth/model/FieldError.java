package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One entry of a {@link Problem}'s {@code errors} array.
 *
 * @param field path of the offending member, e.g. {@code scopes[1].name}
 * @param message what was expected and what was found
 */
public record FieldError(
    @JsonProperty("field") String field, @JsonProperty("message") String message) {}
