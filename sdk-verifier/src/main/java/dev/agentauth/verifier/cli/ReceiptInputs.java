package dev.agentauth.verifier.cli;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.agentauth.verifier.VerificationResult;
import dev.agentauth.verifier.VerificationStep;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits receipt files into receipts ({@link ReceiptStream} reads them). A file holds one receipt
 * (a JSON object), a JSON array of receipts, or NDJSON (one receipt per line, blank lines ignored).
 * Wherever a receipt may stand, so may the envelope {@code GET /v1/receipts/{id}} answers for a
 * signed receipt, {@code {"status":"signed","receipt":{...}}}: it stands for the receipt inside it,
 * so a saved server response can be verified as it is. Another envelope (a pending receipt's, or
 * one with another {@code status}) is reported as what it is, a receipt not to be verified yet.
 *
 * <p>Only the container is parsed here, leniently; each receipt's text is handed to the verifier
 * exactly as given (an array element as its own slice of the file), so the verifier's strict parse
 * (duplicate member names rejected) applies to every receipt. A container that is not valid JSON is
 * an input error; an element or line that is valid JSON but not an object is a receipt that fails
 * verification.
 */
final class ReceiptInputs {

  /** The name under which standard input is reported. */
  static final String STDIN = "<stdin>";

  /** Lenient container parsing: duplicates are the verifier's business, not the container's. */
  static final ObjectMapper LENIENT = JsonMapper.builder().build();

  private static final String EXPECTED =
      "expected a receipt object, a JSON array of receipts, or NDJSON (one receipt per line)";

  private ReceiptInputs() {}

  /** Reads a whole file, mapping every failure to a one-line message. */
  static byte[] readFile(String file, String what) throws InputException {
    try (InputStream in = open(file, what)) {
      return in.readAllBytes();
    } catch (IOException | RuntimeException e) {
      throw cannotRead(file, what, e);
    }
  }

  /** Opens a file for reading, mapping every failure to a one-line message. */
  static InputStream open(String file, String what) throws InputException {
    Path path;
    try {
      path = Path.of(file);
    } catch (InvalidPathException e) {
      throw new InputException("invalid " + what + " name " + file + ": " + e.getReason());
    }
    if (Files.isDirectory(path)) {
      throw new InputException("cannot read " + what + " " + file + ": it is a directory");
    }
    try {
      return Files.newInputStream(path);
    } catch (IOException | RuntimeException e) {
      throw cannotRead(file, what, e);
    }
  }

  /** The one-line message for a file that cannot be read. */
  static InputException cannotRead(String file, String what, Exception e) {
    if (e instanceof NoSuchFileException) {
      return new InputException("cannot read " + what + " " + file + ": no such file");
    }
    if (e instanceof AccessDeniedException) {
      return new InputException("cannot read " + what + " " + file + ": permission denied");
    }
    return new InputException("cannot read " + what + " " + file + ": " + e);
  }

  /** Decodes strict UTF-8, dropping a leading byte order mark. */
  static String decode(String source, byte[] bytes) throws InputException {
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes))
              .toString();
    } catch (CharacterCodingException e) {
      throw new InputException(source + " is not UTF-8 text");
    }
    return text.startsWith("\uFEFF") ? text.substring(1) : text;
  }

  /**
   * Splits one input's whole text into receipts: a single receipt, a JSON array of receipts, or
   * NDJSON. {@link ReceiptStream} reads NDJSON line by line instead, and hands only the other forms
   * here.
   *
   * @param input the input's index among the command's inputs (for {@link ReceiptEntry#position})
   */
  static List<ReceiptEntry> parse(String source, int input, String text) throws InputException {
    if (text.isBlank()) {
      throw new InputException(source + " is empty: " + EXPECTED);
    }
    String problem = singleValueProblem(text);
    if (problem == null) {
      char first = text.strip().charAt(0);
      if (first == '{') {
        return List.of(
            objectEntry(source, ReceiptEntry.position(input, ReceiptEntry.WHOLE, 0), text));
      }
      if (first == '[') {
        return arrayElements(source, input, text);
      }
      throw new InputException(source + ": " + EXPECTED + "; found a single JSON " + kind(first));
    }
    List<String> lines = text.lines().toList();
    int firstLine = firstNonBlank(lines, 0);
    if (firstNonBlank(lines, firstLine + 1) >= 0
        && singleValueProblem(lines.get(firstLine)) == null) {
      List<ReceiptEntry> entries = new ArrayList<>();
      for (int i = 0; i < lines.size(); i++) {
        if (!lines.get(i).isBlank()) {
          entries.add(ndjsonLine(source, input, lines.get(i), i + 1));
        }
      }
      return entries;
    }
    throw new InputException(source + " is not valid JSON: " + problem);
  }

  /**
   * One non-blank NDJSON line, numbered from 1: its entry.
   *
   * @throws InputException when the line is not one JSON value, which stops the run
   */
  static ReceiptEntry ndjsonLine(String source, int input, String line, long number)
      throws InputException {
    String problem = singleValueProblem(line);
    if (problem != null) {
      throw new InputException(
          source + " line " + number + " is not valid JSON (NDJSON input): " + problem);
    }
    long position = ReceiptEntry.position(input, ReceiptEntry.LINE, number);
    return line.strip().startsWith("{")
        ? objectEntry(source + ":" + number, position, line)
        : new ReceiptEntry(source + ":" + number, position, line, null, null);
  }

  private static List<ReceiptEntry> arrayElements(String source, int input, String text)
      throws InputException {
    List<ReceiptEntry> entries = new ArrayList<>();
    try (JsonParser p = LENIENT.createParser(text)) {
      p.nextToken(); // START_ARRAY
      int i = 0;
      for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken(), i++) {
        String at = source + "[" + i + "]";
        long position = ReceiptEntry.position(input, ReceiptEntry.ELEMENT, i);
        if (t == JsonToken.START_OBJECT) {
          long start = p.currentTokenLocation().getCharOffset();
          p.skipChildren();
          long end = p.currentLocation().getCharOffset();
          if (start < 0 || end <= start || end > text.length()) {
            throw new InputException(at + ": cannot locate the element's text");
          }
          entries.add(objectEntry(at, position, text.substring((int) start, (int) end)));
        } else {
          JsonNode value = LENIENT.readTree(p);
          entries.add(new ReceiptEntry(at, position, null, value, null));
        }
      }
    } catch (IOException e) {
      throw new InputException(source + " is not valid JSON: " + describe(e));
    }
    return entries;
  }

  /**
   * The entry for one JSON object's text: the receipt inside a signed-receipt envelope, sliced from
   * the text exactly as given so the verifier's strict parse still sees its bytes; an envelope that
   * holds no signed receipt (a pending one, or another {@code status}), reported as such without
   * verifying anything; or else the object itself, taken as a receipt.
   */
  static ReceiptEntry objectEntry(String source, long position, String text) {
    Envelope envelope = envelope(text);
    if (envelope == null) {
      return new ReceiptEntry(source, position, text, null, null);
    }
    if (envelope.receipt() != null) {
      return new ReceiptEntry(source, position, envelope.receipt(), null, null);
    }
    return new ReceiptEntry(
        source,
        position,
        text,
        null,
        new VerificationResult(
            false, VerificationStep.PARSE, envelope.problem(), envelope.receiptId()));
  }

  /**
   * What an object with a top-level {@code status} member and no {@code version} member is: the
   * service's {@code GET /v1/receipts/{id}} envelope, never a receipt (no receipt has a {@code
   * status} member).
   *
   * @param receipt the signed receipt's text, when the envelope is exactly {@code
   *     {"status":"signed","receipt":{...}}}; else {@code null}
   * @param problem why there is nothing to verify, when {@code receipt} is {@code null}
   * @param receiptId the envelope's {@code receipt_id} when it is a string, to name it in the
   *     report
   */
  private record Envelope(String receipt, String problem, String receiptId) {}

  private static final String SIGNED_SHAPE = "{\"status\":\"signed\",\"receipt\":{...}}";

  /**
   * The envelope {@code text} is, or {@code null} when it is not one (no {@code status} member, a
   * {@code version} member, or not a JSON object): then it is taken as a receipt.
   */
  private static Envelope envelope(String text) {
    try (JsonParser p = LENIENT.createParser(text)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      JsonToken statusToken = null;
      String status = null;
      int statuses = 0;
      String receipt = null;
      int receipts = 0;
      String receiptId = null;
      int others = 0;
      for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        switch (name) {
          case "version" -> {
            return null;
          }
          case "status" -> {
            statuses++;
            statusToken = value;
            status = value == JsonToken.VALUE_STRING ? p.getText() : null;
          }
          case "receipt" -> {
            receipts++;
            if (value == JsonToken.START_OBJECT) {
              long start = p.currentTokenLocation().getCharOffset();
              p.skipChildren();
              long end = p.currentLocation().getCharOffset();
              receipt =
                  start >= 0 && end > start && end <= text.length()
                      ? text.substring((int) start, (int) end)
                      : null;
            } else {
              receipt = null;
            }
          }
          case "receipt_id" -> {
            others++;
            receiptId = value == JsonToken.VALUE_STRING ? p.getText() : null;
          }
          default -> others++;
        }
        p.skipChildren();
      }
      if (statuses == 0) {
        return null;
      }
      if ("signed".equals(status)
          && statuses == 1
          && receipts == 1
          && others == 0
          && receipt != null) {
        return new Envelope(receipt, null, null);
      }
      if ("pending".equals(status)) {
        return new Envelope(
            null,
            "a pending receipt (status \"pending\"): it is not signed yet, so there is nothing"
                + " to verify; fetch it again ("
                + (receiptId != null ? "GET /v1/receipts/" + receiptId : "GET /v1/receipts/{id}")
                + ") once it is signed, and verify that",
            receiptId);
      }
      if ("signed".equals(status)) {
        return new Envelope(
            null,
            "not a signed receipt: a signed receipt's envelope is exactly "
                + SIGNED_SHAPE
                + " (the status and receipt members, each once)",
            receiptId);
      }
      String found =
          status != null
              ? "status \"" + status + "\""
              : "a status that is not a string (" + statusToken + ")";
      return new Envelope(
          null,
          "not a receipt: an envelope with "
              + found
              + ", neither a receipt nor a signed receipt "
              + SIGNED_SHAPE
              + " (a receipt not yet signed has status \"pending\")",
          receiptId);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** Returns {@code null} when {@code text} is exactly one JSON value, else what is wrong. */
  static String singleValueProblem(String text) {
    try (JsonParser p = LENIENT.createParser(text)) {
      if (p.nextToken() == null) {
        return "no JSON value";
      }
      p.skipChildren();
      if (p.nextToken() != null) {
        return "unexpected content after the first JSON value" + at(p.currentTokenLocation());
      }
      return null;
    } catch (IOException | RuntimeException e) {
      return describe(e);
    }
  }

  private static int firstNonBlank(List<String> lines, int from) {
    for (int i = Math.max(from, 0); i < lines.size(); i++) {
      if (!lines.get(i).isBlank()) {
        return i;
      }
    }
    return -1;
  }

  private static String kind(char first) {
    return switch (first) {
      case '"' -> "string";
      case 't', 'f' -> "boolean";
      case 'n' -> "null";
      default -> "number";
    };
  }

  /** A one-line description of a parse error: Jackson's message without its source excerpt. */
  static String describe(Exception e) {
    if (!(e instanceof JsonProcessingException)) {
      return String.valueOf(e.getMessage());
    }
    JsonProcessingException jpe = (JsonProcessingException) e;
    String message = jpe.getOriginalMessage();
    if (message == null) {
      message = e.getClass().getSimpleName();
    }
    int newline = message.indexOf('\n');
    if (newline >= 0) {
      message = message.substring(0, newline);
    }
    if (message.length() > 200) {
      message = message.substring(0, 200) + "...";
    }
    return message + at(jpe.getLocation());
  }

  private static String at(JsonLocation location) {
    if (location == null || location.getLineNr() <= 0) {
      return "";
    }
    return " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
  }
}
