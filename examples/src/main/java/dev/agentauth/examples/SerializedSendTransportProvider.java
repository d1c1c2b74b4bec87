package dev.agentauth.examples;

import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import java.util.List;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * Serializes the sends of a server transport provider's sessions.
 *
 * <p>The MCP Java SDK 2.1.0's {@code StdioServerTransportProvider} enqueues each outgoing message
 * with {@code tryEmitNext} on a unicast sink: when two responses are sent at the same moment (the
 * sync server runs tool calls concurrently on its bounded-elastic scheduler), one enqueue fails
 * with {@code FAIL_NON_SERIALIZED}, is logged as "Failed to enqueue message", and that response is
 * lost, leaving the client waiting (modelcontextprotocol/java-sdk issues 304 and 686). This wrapper
 * subscribes to each send under one lock per session, so enqueues never overlap. The enqueue
 * happens when the send is subscribed (the transport's own ready signals aside), so holding the
 * lock is short: writing to the stream is done by the transport's outbound thread.
 */
final class SerializedSendTransportProvider implements McpServerTransportProvider {
  private final McpServerTransportProvider delegate;

  SerializedSendTransportProvider(McpServerTransportProvider delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  @Override
  public void setSessionFactory(McpServerSession.Factory sessionFactory) {
    Objects.requireNonNull(sessionFactory, "sessionFactory");
    delegate.setSessionFactory(transport -> sessionFactory.create(new Serialized(transport)));
  }

  @Override
  public Mono<Void> notifyClients(String method, Object params) {
    return delegate.notifyClients(method, params);
  }

  @Override
  public Mono<Void> notifyClient(String sessionId, String method, Object params) {
    return delegate.notifyClient(sessionId, method, params);
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public Mono<Void> closeGracefully() {
    return delegate.closeGracefully();
  }

  @Override
  public List<String> protocolVersions() {
    return delegate.protocolVersions();
  }

  /** A session transport whose sends are subscribed one at a time. */
  private static final class Serialized implements McpServerTransport {
    private final McpServerTransport delegate;
    private final Object lock = new Object();

    Serialized(McpServerTransport delegate) {
      this.delegate = delegate;
    }

    @Override
    public Mono<Void> sendMessage(JSONRPCMessage message) {
      return Mono.defer(
          () -> {
            synchronized (lock) {
              // toFuture() subscribes now, inside the lock: the enqueue happens here.
              return Mono.fromFuture(delegate.sendMessage(message).toFuture());
            }
          });
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
      return delegate.unmarshalFrom(data, typeRef);
    }

    @Override
    public void close() {
      delegate.close();
    }

    @Override
    public Mono<Void> closeGracefully() {
      return delegate.closeGracefully();
    }

    @Override
    public List<String> protocolVersions() {
      return delegate.protocolVersions();
    }
  }
}
