package dev.agentauth.server.service;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;

/**
 * The size of JSON as compact UTF-8, counted while serializing into nothing: for a request's tree,
 * abandoned at the first byte past a limit, so that measuring an oversized object costs at most the
 * limit, not the object; for a response item, in full.
 */
final class SerializedSize {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private SerializedSize() {}

  /** The serialized size of {@code node}, or {@code limit + 1} when it is larger than limit. */
  static long of(JsonNode node, long limit) {
    Counter counter = new Counter(limit);
    try (JsonGenerator g = MAPPER.getFactory().createGenerator(counter)) {
      MAPPER.writeTree(g, node);
    } catch (Over e) {
      return limit + 1;
    } catch (IOException e) {
      throw new IllegalStateException("a JSON tree could not be measured", e);
    }
    return counter.count;
  }

  /** The size of {@code value} as {@code json} writes it, counted without keeping the bytes. */
  static long of(ObjectMapper json, Object value) {
    Counter counter = new Counter(Long.MAX_VALUE);
    try {
      json.writeValue(counter, value);
    } catch (IOException e) {
      throw new IllegalStateException("a response item could not be measured", e);
    }
    return counter.count;
  }

  private static final class Over extends IOException {
    private static final long serialVersionUID = 1L;

    Over() {
      super("over the limit", null);
    }
  }

  private static final class Counter extends OutputStream {
    private final long limit;
    long count;

    Counter(long limit) {
      this.limit = limit;
    }

    @Override
    public void write(int b) throws IOException {
      add(1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      add(len);
    }

    private void add(long n) throws Over {
      count += n;
      if (count > limit) {
        throw new Over();
      }
    }
  }
}
