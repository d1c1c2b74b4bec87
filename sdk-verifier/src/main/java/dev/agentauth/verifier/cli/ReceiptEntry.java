package dev.agentauth.verifier.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.verifier.VerificationResult;
import java.util.List;

/**
 * One receipt read from the input.
 *
 * @param source where it came from: {@code FILE} (the whole file), {@code FILE[i]} (array element)
 *     or {@code FILE:line} (NDJSON line); {@code FILE} is {@code <stdin>} for {@code -}
 * @param position the same place in eight bytes ({@link #position(int, int, long)}), which a chain
 *     keeps for each of its receipts instead of the source text
 * @param text the receipt's JSON text exactly as given, or {@code null} when it is not an object
 * @param nonObject the parsed value when it is valid JSON but not an object (an array element such
 *     as {@code 42}), else {@code null}
 * @param notReceipt when the object is a receipt envelope holding no signed receipt (a pending
 *     one), the failed result to report instead of verifying it; else {@code null}
 */
record ReceiptEntry(
    String source, long position, String text, JsonNode nonObject, VerificationResult notReceipt) {

  /** The whole file is the receipt. */
  static final int WHOLE = 0;

  /** An element of a JSON array, numbered from 0. */
  static final int ELEMENT = 1;

  /** A line of NDJSON, numbered from 1. */
  static final int LINE = 2;

  /**
   * Encodes where a receipt came from: the input's index among the command's inputs, {@link
   * #WHOLE}, {@link #ELEMENT} or {@link #LINE}, and the element or line number.
   */
  static long position(int input, int kind, long number) {
    return ((long) input << 42) | ((long) kind << 40) | (number & ((1L << 40) - 1));
  }

  /** The source text of {@code position}, given the inputs' names in order. */
  static String source(List<String> inputs, long position) {
    String name = inputs.get((int) (position >>> 42));
    long number = position & ((1L << 40) - 1);
    return switch ((int) ((position >>> 40) & 3)) {
      case ELEMENT -> name + "[" + number + "]";
      case LINE -> name + ":" + number;
      default -> name;
    };
  }
}
