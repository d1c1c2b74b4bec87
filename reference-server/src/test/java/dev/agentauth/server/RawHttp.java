package dev.agentauth.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * An HTTP/1.1 client over a raw socket, for requests no real client would send: any bytes go out as
 * they are, on a fresh connection that the client half-closes once they are written (so a request
 * that promised more body than it sent ends at once instead of waiting for a timeout). Every
 * response that comes back on the connection is parsed; a truncated one is reported as such.
 */
final class RawHttp {
  private final int port;

  RawHttp(int port) {
    this.port = port;
  }

  /** One parsed response; header names are lower-cased. */
  record Response(int status, Map<String, String> headers, byte[] body, String problem) {
    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }

    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }

    /** Null, or why these bytes are not a well-formed response. */
    String malformed() {
      return problem;
    }
  }

  /**
   * Sends {@code request} and returns every final response read until the server closed the
   * connection (interim 1xx answers are skipped); {@code head} says whether the first request was a
   * HEAD, whose answer carries no body.
   */
  List<Response> exchange(byte[] request, boolean head) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
      socket.setSoTimeout(15_000);
      try {
        socket.getOutputStream().write(request);
        socket.getOutputStream().flush();
        socket.shutdownOutput();
      } catch (IOException e) {
        // The server answered and closed before taking every byte (a 413, a 431); read what it
        // said.
      }
      byte[] bytes = readAll(socket.getInputStream());
      return parse(bytes, head);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[16 * 1024];
    try {
      int n;
      while ((n = in.read(buf)) != -1) {
        out.write(buf, 0, n);
      }
    } catch (java.net.SocketException e) {
      // A reset after the answer (the server closed with unread request bytes): keep what came.
    }
    return out.toByteArray();
  }

  static List<Response> parse(byte[] bytes, boolean head) {
    List<Response> out = new ArrayList<>();
    int pos = 0;
    while (pos < bytes.length) {
      int end = indexOf(bytes, pos, "\r\n\r\n");
      if (end < 0) {
        out.add(new Response(0, Map.of(), new byte[0], "no end of headers"));
        return out;
      }
      String[] lines = new String(bytes, pos, end - pos, StandardCharsets.ISO_8859_1).split("\r\n");
      String[] statusLine = lines[0].split(" ", 3);
      if (statusLine.length < 2 || !statusLine[0].startsWith("HTTP/1.")) {
        out.add(new Response(0, Map.of(), new byte[0], "bad status line: " + lines[0]));
        return out;
      }
      int status;
      try {
        status = Integer.parseInt(statusLine[1]);
      } catch (NumberFormatException e) {
        out.add(new Response(0, Map.of(), new byte[0], "bad status line: " + lines[0]));
        return out;
      }
      Map<String, String> headers = new LinkedHashMap<>();
      for (int i = 1; i < lines.length; i++) {
        int colon = lines[i].indexOf(':');
        if (colon > 0) {
          headers.put(
              lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
              lines[i].substring(colon + 1).trim());
        }
      }
      pos = end + 4;
      if (status >= 100 && status < 200) {
        continue;
      }
      // A HEAD answer has no body, unless the server could not parse the request as a HEAD (a
      // broken request line) and answered as to any other request: then a body follows.
      boolean headAnswer =
          head && out.isEmpty() && (pos == bytes.length || startsWith(bytes, pos, "HTTP/"));
      boolean noBody = headAnswer || status == 204 || status == 304;
      String length = headers.get("content-length");
      String chunked = headers.get("transfer-encoding");
      byte[] body;
      if (noBody) {
        body = new byte[0];
      } else if (chunked != null && chunked.toLowerCase(Locale.ROOT).contains("chunked")) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        while (true) {
          int lineEnd = indexOf(bytes, pos, "\r\n");
          if (lineEnd < 0) {
            out.add(new Response(status, headers, b.toByteArray(), "truncated chunked body"));
            return out;
          }
          String sizeText = new String(bytes, pos, lineEnd - pos, StandardCharsets.ISO_8859_1);
          int size = Integer.parseInt(sizeText.split(";")[0].trim(), 16);
          pos = lineEnd + 2;
          if (size == 0) {
            int trailerEnd = indexOf(bytes, pos, "\r\n");
            pos = trailerEnd < 0 ? bytes.length : trailerEnd + 2;
            break;
          }
          if (pos + size > bytes.length) {
            out.add(new Response(status, headers, b.toByteArray(), "truncated chunk"));
            return out;
          }
          b.write(bytes, pos, size);
          pos += size + 2;
        }
        body = b.toByteArray();
      } else if (length != null) {
        int n = Integer.parseInt(length);
        if (pos + n > bytes.length) {
          out.add(new Response(status, headers, new byte[0], "body shorter than Content-Length"));
          return out;
        }
        body = java.util.Arrays.copyOfRange(bytes, pos, pos + n);
        pos += n;
      } else {
        body = java.util.Arrays.copyOfRange(bytes, pos, bytes.length);
        pos = bytes.length;
      }
      out.add(new Response(status, headers, body, null));
    }
    return out;
  }

  private static boolean startsWith(byte[] bytes, int from, String token) {
    return indexOf(bytes, from, token) == from;
  }

  private static int indexOf(byte[] bytes, int from, String token) {
    byte[] t = token.getBytes(StandardCharsets.ISO_8859_1);
    outer:
    for (int i = from; i <= bytes.length - t.length; i++) {
      for (int j = 0; j < t.length; j++) {
        if (bytes[i + j] != t[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
