package dev.agentauth.verifier.cli;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * One input read a window at a time, so that memory is bounded by the window rather than the file.
 * NDJSON is read line by line; a single receipt or a JSON array is read whole (its text is one JSON
 * value) and then handed out a window at a time.
 *
 * <p>The form is told apart as {@link ReceiptInputs#parse} tells it, from the first two non-blank
 * lines: when the first is one JSON value and another non-blank line follows, the input is NDJSON;
 * otherwise the whole text is read and parsed as before. Lines end at {@code \n}, {@code \r} or
 * {@code \r\n} and are numbered from 1, as {@link String#lines()} splits them.
 */
final class ReceiptStream implements Closeable {

  /**
   * A receipt to verify: an entry already split from a whole input, or an NDJSON line not yet
   * checked (checked on the verifying threads by {@link #entry()}).
   */
  record Item(ReceiptEntry ready, String source, int input, String line, long number) {

    /** The item's entry; for an NDJSON line, after checking that it is one JSON value. */
    ReceiptEntry entry() throws InputException {
      return line == null ? ready : ReceiptInputs.ndjsonLine(source, input, line, number);
    }

    /** Checks that the item is a receipt, as {@link #entry()} does, without making the entry. */
    void check() throws InputException {
      if (line != null && ReceiptInputs.singleValueProblem(line) != null) {
        entry();
      }
    }

    int length() {
      return line == null ? (ready.text() == null ? 16 : ready.text().length()) : line.length();
    }
  }

  private final String source;
  private final int input;
  private final Reader reader;
  private final char[] buffer = new char[1 << 16];
  private int position;
  private int limit;
  private boolean eof;
  private long lineNumber;

  /** The entries of an input read whole, else {@code null}. */
  private List<ReceiptEntry> whole;

  private int wholeNext;

  /** The first lines of NDJSON, read to tell the form apart and not handed out yet. */
  private final List<Item> firstLines = new ArrayList<>(2);

  private boolean started;

  private ReceiptStream(String source, int input, InputStream in) {
    this.source = source;
    this.input = input;
    this.reader =
        new InputStreamReader(
            in,
            StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT));
  }

  /**
   * Opens {@code file}, named {@code name} in messages and sources.
   *
   * @param input the input's index among the command's inputs
   */
  static ReceiptStream open(String file, String name, int input) throws InputException {
    return new ReceiptStream(name, input, ReceiptInputs.open(file, "receipt file"));
  }

  /**
   * Copies standard input to a temporary file, deleted on exit, so that it can be read twice (once
   * to check it, once to verify it) without holding it in memory.
   */
  static Path spool(InputStream stdin) throws InputException {
    Path file;
    try {
      file = Files.createTempFile("agentauth-verify-stdin-", ".txt");
      file.toFile().deleteOnExit();
    } catch (IOException | RuntimeException e) {
      throw new InputException("cannot copy standard input to a temporary file: " + e);
    }
    try {
      Files.copy(stdin, file, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new InputException("cannot read standard input: " + e.getMessage());
    }
    return file;
  }

  /** The input's name in messages: the file name, or {@code <stdin>}. */
  String source() {
    return source;
  }

  /**
   * The next receipts, at most {@code maxItems} of them and about {@code maxChars} characters of
   * text (at least one receipt, however long); empty at the end of the input.
   *
   * @throws InputException when the input cannot be read, is not UTF-8, or is not one of the forms
   */
  List<Item> next(int maxItems, long maxChars) throws InputException {
    try {
      if (!started) {
        started = true;
        start();
      }
      List<Item> items = new ArrayList<>(Math.min(maxItems, 1024));
      long chars = 0;
      if (whole != null) {
        while (wholeNext < whole.size() && items.size() < maxItems && chars < maxChars) {
          Item item = new Item(whole.get(wholeNext), null, input, null, 0);
          whole.set(wholeNext++, null);
          items.add(item);
          chars += item.length();
        }
        return items;
      }
      while (!firstLines.isEmpty() && items.size() < maxItems) {
        Item item = firstLines.remove(0);
        items.add(item);
        chars += item.length();
      }
      while (items.size() < maxItems && chars < maxChars) {
        String line = readLine(null);
        if (line == null) {
          break;
        }
        if (!line.isBlank()) {
          items.add(new Item(null, source, input, line, lineNumber));
          chars += line.length();
        }
      }
      return items;
    } catch (CharacterCodingException e) {
      throw new InputException(source + " is not UTF-8 text");
    } catch (IOException e) {
      throw new InputException("cannot read " + describe() + ": " + e);
    }
  }

  private String describe() {
    return ReceiptInputs.STDIN.equals(source) ? "standard input" : "receipt file " + source;
  }

  /** Reads up to the second non-blank line and decides between NDJSON and a whole input. */
  private void start() throws IOException, InputException {
    if (fill() && buffer[position] == '\uFEFF') {
      position++;
    }
    StringBuilder text = new StringBuilder();
    String first = readLine(text);
    while (first != null && first.isBlank()) {
      first = readLine(text);
    }
    if (first != null && ReceiptInputs.singleValueProblem(first) == null) {
      long firstNumber = lineNumber;
      String second = readLine(text);
      while (second != null && second.isBlank()) {
        second = readLine(text);
      }
      if (second != null) {
        firstLines.add(new Item(null, source, input, first, firstNumber));
        firstLines.add(new Item(null, source, input, second, lineNumber));
        return;
      }
    }
    // One JSON value (or not valid JSON at all): read it whole.
    while (fill()) {
      text.append(buffer, position, limit - position);
      position = limit;
    }
    whole = new ArrayList<>(ReceiptInputs.parse(source, input, text.toString()));
  }

  /** Whether there are characters to read, reading more into the buffer if needed. */
  private boolean fill() throws IOException {
    if (position < limit) {
      return true;
    }
    if (eof) {
      return false;
    }
    int n;
    do {
      n = reader.read(buffer, 0, buffer.length);
    } while (n == 0);
    if (n < 0) {
      eof = true;
      return false;
    }
    position = 0;
    limit = n;
    return true;
  }

  /**
   * The next line without its end, or {@code null} at the end of the input; appends everything
   * read, the line's end included, to {@code text} unless it is {@code null}.
   */
  private String readLine(StringBuilder text) throws IOException {
    if (!fill()) {
      return null;
    }
    StringBuilder line = null;
    while (true) {
      int start = position;
      while (position < limit && buffer[position] != '\n' && buffer[position] != '\r') {
        position++;
      }
      if (position < limit) {
        String part = new String(buffer, start, position - start);
        String result = line == null ? part : line.append(part).toString();
        char end = buffer[position++];
        if (text != null) {
          text.append(result).append(end);
        }
        if (end == '\r' && fill() && buffer[position] == '\n') {
          position++;
          if (text != null) {
            text.append('\n');
          }
        }
        lineNumber++;
        return result;
      }
      if (line == null) {
        line = new StringBuilder(Math.max(16, position - start) * 2);
      }
      line.append(buffer, start, position - start);
      if (!fill()) {
        lineNumber++;
        if (text != null) {
          text.append(line);
        }
        return line.toString();
      }
    }
  }

  @Override
  public void close() {
    try {
      reader.close();
    } catch (IOException e) {
      // Only read from: nothing is lost.
    }
  }
}
