package dev.agentauth.client.internal;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One endpoint call, described once and executed by {@link Transport} synchronously or not. Not
 * part of the public API.
 *
 * @param <T> the response body type
 */
public final class ApiRequest<T> {

  /** Which default timeout applies. */
  public enum Kind {
    /** The general request timeout. */
    STANDARD,
    /** The check timeout (plus the inline signing wait when {@code wait=true}). */
    CHECK
  }

  final String method;
  final String template;
  final List<String> segments;
  final Map<String, String> query;
  final Object body;
  final ResponseReader<T> reader;
  final String bodyType;
  final boolean authenticated;
  final Kind kind;
  final boolean waitForReceipt;
  final boolean repeatable;

  private ApiRequest(Builder<T> b) {
    this.method = b.method;
    this.template = b.template;
    this.segments = List.copyOf(b.segments);
    this.query = Collections.unmodifiableMap(new LinkedHashMap<>(b.query));
    this.body = b.body;
    Class<T> type = b.responseType;
    this.reader = b.reader != null ? b.reader : (mapper, bytes) -> mapper.readValue(bytes, type);
    this.bodyType = (b.readsAs != null ? b.readsAs : type).getSimpleName();
    this.authenticated = b.authenticated;
    this.kind = b.kind;
    this.waitForReceipt = b.waitForReceipt;
    this.repeatable = b.repeatable;
  }

  /**
   * Starts a request.
   *
   * @param method HTTP method
   * @param template the path as documented, e.g. {@code /v1/authorizations/{id}} (used in messages
   *     so that ids and nonces stay out of logs)
   * @param responseType the body type of a successful answer
   * @param segments the actual path segments after the base URL
   */
  public static <T> Builder<T> of(
      String method, String template, Class<T> responseType, String... segments) {
    return new Builder<>(method, template, responseType, List.of(segments));
  }

  /** Returns the HTTP method. */
  public String method() {
    return method;
  }

  /** Returns {@code METHOD /path/{template}} for messages. */
  public String describe() {
    return method + " " + template;
  }

  /** Returns the request body object, or {@code null}. */
  public Object body() {
    return body;
  }

  /** Returns the query parameters. */
  public Map<String, String> query() {
    return query;
  }

  /** Returns the path segments. */
  public List<String> segments() {
    return segments;
  }

  /** Returns whether the API key is sent. */
  public boolean authenticated() {
    return authenticated;
  }

  /** Returns which default timeout applies. */
  public Kind kind() {
    return kind;
  }

  /** Returns whether {@code wait=true} was asked. */
  public boolean waitForReceipt() {
    return waitForReceipt;
  }

  /**
   * Returns whether this call carries an {@code Idempotency-Key}: every POST and DELETE that may be
   * repeated.
   */
  public boolean idempotent() {
    return repeatable && (method.equals("POST") || method.equals("DELETE"));
  }

  /** Returns whether this call may be sent more than once (retried); false only when marked so. */
  public boolean repeatable() {
    return repeatable;
  }

  /**
   * Builder of {@link ApiRequest}.
   *
   * @param <T> the response body type
   */
  public static final class Builder<T> {
    private final String method;
    private final String template;
    private final Class<T> responseType;
    private final List<String> segments;
    private ResponseReader<T> reader;
    private Class<?> readsAs;
    private final Map<String, String> query = new LinkedHashMap<>();
    private Object body;
    private boolean authenticated = true;
    private Kind kind = Kind.STANDARD;
    private boolean waitForReceipt;
    private boolean repeatable = true;

    private Builder(String method, String template, Class<T> responseType, List<String> segments) {
      this.method = Objects.requireNonNull(method, "method");
      this.template = Objects.requireNonNull(template, "template");
      this.responseType = Objects.requireNonNull(responseType, "responseType");
      this.segments = segments;
    }

    /** Sets the JSON body. */
    public Builder<T> body(Object body) {
      this.body = body;
      return this;
    }

    /** Adds query parameters. */
    public Builder<T> query(Map<String, String> query) {
      this.query.putAll(query);
      return this;
    }

    /**
     * Reads the body with {@code reader} instead of the mapper's default for the response type.
     *
     * @param readsAs the wire type the body must read as, named in malformed-response messages
     */
    Builder<T> reader(ResponseReader<T> reader, Class<?> readsAs) {
      this.reader = Objects.requireNonNull(reader, "reader");
      this.readsAs = Objects.requireNonNull(readsAs, "readsAs");
      return this;
    }

    /** Sends no API key (public endpoints). */
    public Builder<T> unauthenticated() {
      this.authenticated = false;
      return this;
    }

    /** Marks a {@code /v1/check} call. */
    public Builder<T> check() {
      this.kind = Kind.CHECK;
      return this;
    }

    /** Adds {@code wait=true} when {@code wait} is true. */
    public Builder<T> waitForReceipt(boolean wait) {
      this.waitForReceipt = wait;
      if (wait) {
        query.put("wait", "true");
      }
      return this;
    }

    /**
     * Marks a call that must be sent at most once and carries no {@code Idempotency-Key}: its
     * effect cannot be replayed (creating an API key).
     */
    public Builder<T> unrepeatable() {
      this.repeatable = false;
      return this;
    }

    /** Returns the request. */
    public ApiRequest<T> build() {
      return new ApiRequest<>(this);
    }
  }
}
