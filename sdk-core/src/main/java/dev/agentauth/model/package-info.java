/**
 * The agentauth wire model: one immutable record per JSON body of the API, shared by the client SDK
 * and the reference server so the two cannot drift.
 *
 * <ul>
 *   <li>Read and write with {@link dev.agentauth.model.AgentAuthJson#newObjectMapper()} (client) or
 *       {@link dev.agentauth.model.AgentAuthJson#newStrictObjectMapper()} (server requests).
 *   <li>Member names are the wire's snake_case names. Each record's Javadoc says which {@code null}
 *       members are written as explicit {@code null} and which are omitted. Request records omit
 *       {@code null} members and accept any JSON-shaped value (the server validates); they have no
 *       builders: clients build them, validated, with the {@code *Params} classes of {@code
 *       dev.agentauth.client}.
 *   <li>Closed value sets ({@link dev.agentauth.model.Decision}, {@link
 *       dev.agentauth.model.Reason}, ...) are open enums: unknown wire strings are kept, not
 *       rejected.
 *   <li>{@code receipt} members are {@link dev.agentauth.model.ReceiptRef}s (pending envelope or
 *       signed receipt); {@code GET /v1/receipts/{id}} is a {@link
 *       dev.agentauth.model.ReceiptLookup}.
 *   <li>Timestamps are {@link java.time.Instant}s written as {@code 2026-11-22T10:15:30.123Z}.
 * </ul>
 */
package dev.agentauth.model;
