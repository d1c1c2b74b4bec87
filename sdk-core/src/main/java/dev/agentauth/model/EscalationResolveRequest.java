package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Body of {@code POST /v1/escalations/{id}/resolve}; send only after a real approver decides.
 * {@code null} members mean absent and are omitted when written.
 *
 * @param resolvedBy opaque approver identifier, never a raw e-mail or legal name
 * @param note copied into the resolution receipt
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EscalationResolveRequest(
    @JsonProperty("resolution") Resolution resolution,
    @JsonProperty("resolved_by") String resolvedBy,
    @JsonProperty("note") String note) {}
