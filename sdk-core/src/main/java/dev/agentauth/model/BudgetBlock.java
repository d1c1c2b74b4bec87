package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The {@code budget} object of a {@link CheckResult}, present when the budget was evaluated. All
 * amounts are micro-USD.
 *
 * @param spentMicros spent before this check
 * @param spentAfterMicros {@code spent + estimate} if this result is {@code allow}, else {@code
 *     spent}
 */
public record BudgetBlock(
    @JsonProperty("limit_micros") long limitMicros,
    @JsonProperty("spent_micros") long spentMicros,
    @JsonProperty("estimated_cost_micros") long estimatedCostMicros,
    @JsonProperty("spent_after_micros") long spentAfterMicros) {}
