package dev.agentauth.verifier.cli;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One receipt read from the input.
 *
 * @param source where it came from: {@code FILE} (the whole file), {@code FILE[i]} (array element)
 *     or {@code FILE:line} (NDJSON line); {@code FILE} is {@code <stdin>} for {@code -}
 * @param text the receipt's JSON text exactly as given, or {@code null} when it is not an object
 * @param nonObject the parsed value when it is valid JSON but not an object (an array element such
 *     as {@code 42}), else {@code null}
 */
record ReceiptEntry(String source, String text, JsonNode nonObject) {}
