/**
 * The agentauth Java client: {@link dev.agentauth.client.AgentAuthClient} and its services.
 *
 * <pre>{@code
 * AgentAuthClient client = AgentAuthClient.builder()
 *     .baseUrl("https://agentauth.example.com")
 *     .apiKey(apiKey)
 *     .build();
 * CheckResponse r = client.check(CheckParams.of(authorizationId, "email.send"));
 * }</pre>
 *
 * <ul>
 *   <li>Request bodies are built with validating builders ({@link
 *       dev.agentauth.client.CheckParams}, {@link dev.agentauth.client.AuthorizationCreateParams},
 *       ...): mistakes the client can see fail with {@link IllegalArgumentException} before any
 *       network call.
 *   <li>Responses are the wire records of {@code dev.agentauth.model}. The {@code ...WithResponse}
 *       methods wrap them in an {@link dev.agentauth.client.ApiResponse} carrying status, headers
 *       and {@code X-Request-Id}.
 *   <li>Failures are {@link dev.agentauth.client.AgentAuthException}s; check denials are results.
 *   <li>Per-call settings: {@link dev.agentauth.client.RequestOptions}.
 *   <li>{@code dev.agentauth.client.internal} is the implementation, not API: it may change in any
 *       release.
 * </ul>
 */
package dev.agentauth.client;
