package dev.agentauth.guard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.agentauth.verifier.CanonicalizationException;
import dev.agentauth.verifier.Canonicalizer;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * What one approval covers: how a guarded call becomes the {@code resource} of its check.
 *
 * <p>A confirmation window and an escalation approval apply to re-checks of the same authorization,
 * scope <em>and resource</em>. Every check a guard makes therefore carries a resource that names
 * the call, so that approving "delete note n1" never also allows "delete note n2":
 *
 * <ul>
 *   <li>{@link #argumentsDigest()} (the default): {@code <tool name>:} followed by the unpadded
 *       base64url SHA-256 of the arguments' canonical JSON (the receipts' canonical form: members
 *       sorted, no whitespace). An approval covers only a call with identical arguments, whatever
 *       their key order.
 *   <li>{@link #template(String)}: a readable resource built from top-level arguments, e.g. {@code
 *       notes:{id}}, which {@code resource_pattern} constraints ({@code notes:*}) and tombstones
 *       can match. An approval covers every call naming the same values, whatever its other
 *       arguments.
 *   <li>{@link #extractor(Function)}: any function of the call.
 *   <li>{@link #unbound()}: no resource. <b>This widens every approval to the whole scope</b>: one
 *       confirmation allows every call of the tool for its window, one escalation approval the next
 *       call of the tool, whatever its arguments.
 * </ul>
 *
 * <p><b>Template values.</b> A placeholder takes the top-level argument of that name when it is a
 * non-empty string or an integer (written in decimal, so {@code {"id": 42}} and {@code {"id":
 * "42"}} name the same resource). Characters other than {@code A-Z a-z 0-9 - . _ ~} in a value are
 * percent-encoded (UTF-8), so a value can never reproduce the template's separators: {@code
 * notes:{folder}/{id}} with folder {@code a/b} is {@code notes:a%2Fb/...}, never the resource of
 * another folder. An argument that is missing, {@code null}, empty, or of another JSON type
 * (object, array, boolean, fraction) has no resource: {@link #resourceFor(GuardCall)} throws {@link
 * ResourceBindingException} and the guard denies the call locally with reason {@value
 * ResourceBindingException#REASON}. Two placeholders must be separated by at least one character
 * that an encoded value cannot contain (anything but {@code A-Z a-z 0-9 - . _ ~ %}), else two calls
 * could share a resource ({@code {a}{b}} with {@code 1,23} and {@code 12,3}).
 *
 * <p>Immutable and thread-safe.
 */
public final class ResourceBinding {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final ObjectMapper SORTED =
      new ObjectMapper().enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_\\-.]{1,128}");
  private static final int MAX_RESOURCE_LENGTH = 256;

  /** The longest tool name whose digest resource fits the service's 256 characters. */
  public static final int MAX_DIGEST_TOOL_NAME = MAX_RESOURCE_LENGTH - 44;

  private static final ResourceBinding DIGEST = new ResourceBinding(Kind.DIGEST, null, null, null);
  private static final ResourceBinding UNBOUND =
      new ResourceBinding(Kind.UNBOUND, null, null, null);

  private enum Kind {
    DIGEST,
    TEMPLATE,
    EXTRACTOR,
    UNBOUND
  }

  /** A template part: literal text, or a placeholder naming a top-level argument. */
  private record Part(String text, boolean placeholder) {}

  private final Kind kind;
  private final String template;
  private final List<Part> parts;
  private final Function<GuardCall, String> extractor;

  private ResourceBinding(
      Kind kind, String template, List<Part> parts, Function<GuardCall, String> extractor) {
    this.kind = kind;
    this.template = template;
    this.parts = parts;
    this.extractor = extractor;
  }

  /**
   * Returns the default binding: {@code <tool name>:} + the unpadded base64url SHA-256 of the
   * canonical JSON of the call's arguments ({@code {}} when there are none). Arguments holding
   * numbers with no canonical form (fractions, integers beyond ±2<sup>53</sup>−1) are hashed from a
   * key-sorted JSON form under a separate prefix byte instead, so they still bind only identical
   * calls.
   */
  public static ResourceBinding argumentsDigest() {
    return DIGEST;
  }

  /**
   * Returns a binding that fills {@code template}'s placeholders ({@code {name}}, naming top-level
   * arguments: 1–128 of {@code A-Z a-z 0-9 _ - .}) from the call, e.g. {@code "notes:{id}"}. See
   * the class description for the values accepted.
   *
   * @throws IllegalArgumentException if the template is empty or longer than 256 characters, has an
   *     unbalanced or empty brace or a bad placeholder name, names no placeholder, or has two
   *     placeholders not separated by a character outside {@code A-Z a-z 0-9 - . _ ~ %}
   */
  public static ResourceBinding template(String template) {
    Objects.requireNonNull(template, "template");
    return new ResourceBinding(Kind.TEMPLATE, template, parse(template), null);
  }

  /**
   * Returns a binding computed by {@code extractor}, e.g. {@code call -> "mailbox:" +
   * call.stringArgument("mailbox")}. The function must return a value that differs whenever the
   * calls differ in what the user approves; returning {@code null} sends no resource, which widens
   * that call's approval to the whole scope (see {@link #unbound()}).
   */
  public static ResourceBinding extractor(Function<GuardCall, String> extractor) {
    return new ResourceBinding(
        Kind.EXTRACTOR, null, null, Objects.requireNonNull(extractor, "extractor"));
  }

  /**
   * Returns the explicit opt-out: the check carries no resource. <b>Every approval then covers the
   * whole scope</b>: a confirmation allows every call of the tool during its window and an
   * escalation approval the next call, whatever the arguments. Use it only for tools whose calls
   * the user cannot tell apart.
   */
  public static ResourceBinding unbound() {
    return UNBOUND;
  }

  /** Returns the argument names a template reads, in order; empty for other bindings. */
  public Set<String> placeholders() {
    if (parts == null) {
      return Set.of();
    }
    Set<String> names = new LinkedHashSet<>();
    for (Part p : parts) {
      if (p.placeholder()) {
        names.add(p.text());
      }
    }
    return Collections.unmodifiableSet(names);
  }

  /** Returns whether this is the {@link #unbound()} opt-out. */
  public boolean isUnbound() {
    return kind == Kind.UNBOUND;
  }

  /** Returns whether this binding reads every argument ({@link #argumentsDigest()}). */
  public boolean bindsAllArguments() {
    return kind != Kind.TEMPLATE;
  }

  /**
   * Returns the resource of {@code call}, or {@code null} for {@link #unbound()} (and when an
   * extractor returns {@code null}).
   *
   * @throws ResourceBindingException if a template's argument is missing or has no resource form,
   *     or the filled template is longer than 256 characters
   */
  public String resourceFor(GuardCall call) {
    Objects.requireNonNull(call, "call");
    return switch (kind) {
      case DIGEST -> call.toolName() + ":" + digest(call);
      case TEMPLATE -> fill(call);
      case EXTRACTOR -> extractor.apply(call);
      case UNBOUND -> null;
    };
  }

  private String fill(GuardCall call) {
    StringBuilder out = new StringBuilder();
    for (Part p : parts) {
      if (!p.placeholder()) {
        out.append(p.text());
        continue;
      }
      String value = valueOf(call.arguments().get(p.text()));
      if (value == null) {
        throw new ResourceBindingException(
            call.toolName(),
            p.text(),
            "expected argument \""
                + p.text()
                + "\" of tool \""
                + call.toolName()
                + "\" to be a non-empty string or an integer (resource template \""
                + template
                + "\"), found "
                + describe(call.arguments().get(p.text()), call.arguments().containsKey(p.text())));
      }
      encode(value, out);
    }
    if (out.length() > MAX_RESOURCE_LENGTH) {
      throw new ResourceBindingException(
          call.toolName(),
          null,
          "expected the resource of tool \""
              + call.toolName()
              + "\" (template \""
              + template
              + "\") to be at most 256 characters, found "
              + out.length());
    }
    return out.toString();
  }

  private static String valueOf(Object v) {
    if (v instanceof String s) {
      return s.isEmpty() ? null : s;
    }
    if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
      return v.toString();
    }
    if (v instanceof BigInteger b) {
      return b.toString();
    }
    if (v instanceof BigDecimal d) {
      try {
        return d.toBigIntegerExact().toString();
      } catch (ArithmeticException e) {
        return null;
      }
    }
    return null;
  }

  private static String describe(Object v, boolean present) {
    if (!present) {
      return "no such argument";
    }
    if (v == null) {
      return "null";
    }
    if (v instanceof String) {
      return "an empty string";
    }
    if (v instanceof Boolean) {
      return "a boolean";
    }
    if (v instanceof Number) {
      return "a fraction";
    }
    if (v instanceof java.util.Map) {
      return "an object";
    }
    if (v instanceof java.util.Collection) {
      return "an array";
    }
    return "a " + v.getClass().getSimpleName();
  }

  private static void encode(String value, StringBuilder out) {
    for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if (unreserved(c)) {
        out.append((char) c);
      } else {
        out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)));
        out.append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
      }
    }
  }

  private static boolean unreserved(int c) {
    return (c >= 'A' && c <= 'Z')
        || (c >= 'a' && c <= 'z')
        || (c >= '0' && c <= '9')
        || c == '-'
        || c == '.'
        || c == '_'
        || c == '~';
  }

  private static List<Part> parse(String template) {
    if (template.isEmpty() || template.length() > MAX_RESOURCE_LENGTH) {
      throw new IllegalArgumentException(
          "expected a resource template of 1-256 characters, found " + template.length());
    }
    List<Part> parts = new ArrayList<>();
    StringBuilder literal = new StringBuilder();
    boolean placeholderSeen = false;
    boolean separated = true; // whether a separating character came since the last placeholder
    int i = 0;
    while (i < template.length()) {
      char c = template.charAt(i);
      if (c == '}') {
        throw malformed(template, "a '}' at index " + i + " without its '{'");
      }
      if (c != '{') {
        literal.append(c);
        if (c != '%' && !unreserved(c)) {
          separated = true;
        }
        i++;
        continue;
      }
      int end = template.indexOf('}', i + 1);
      if (end < 0) {
        throw malformed(template, "a '{' at index " + i + " without its '}'");
      }
      String name = template.substring(i + 1, end);
      if (!NAME.matcher(name).matches()) {
        throw malformed(
            template,
            "placeholder \"{"
                + name
                + "}\": a placeholder names a top-level argument, 1-128 of A-Z a-z 0-9 _ - .");
      }
      if (placeholderSeen && !separated) {
        throw malformed(
            template,
            "placeholder \"{"
                + name
                + "}\" follows the previous one with no separator: put a character other than"
                + " A-Z a-z 0-9 - . _ ~ % between them (e.g. '/' or ':'), else two calls could"
                + " share a resource");
      }
      if (literal.length() > 0) {
        parts.add(new Part(literal.toString(), false));
        literal.setLength(0);
      }
      parts.add(new Part(name, true));
      placeholderSeen = true;
      separated = false;
      i = end + 1;
    }
    if (literal.length() > 0) {
      parts.add(new Part(literal.toString(), false));
    }
    if (!placeholderSeen) {
      throw malformed(
          template,
          "no placeholder: a template without one gives every call the same resource; use"
              + " ResourceBinding.unbound() to opt out on purpose");
    }
    return List.copyOf(parts);
  }

  private static IllegalArgumentException malformed(String template, String problem) {
    return new IllegalArgumentException(
        "expected a resource template such as \"notes:{id}\", found \""
            + template
            + "\": "
            + problem);
  }

  private static String digest(GuardCall call) {
    byte[] input;
    try {
      JsonNode tree = MAPPER.valueToTree(call.arguments());
      input = Canonicalizer.canonicalize(tree);
    } catch (CanonicalizationException | IllegalArgumentException e) {
      // No canonical form (a fraction, a huge integer, a lone surrogate): hash a key-sorted JSON
      // form instead, after a 0x00 byte that canonical JSON never starts with, so the two forms
      // cannot produce the same input.
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      bytes.write(0);
      try {
        bytes.write(SORTED.writeValueAsBytes(call.arguments()));
      } catch (java.io.IOException io) {
        throw new ResourceBindingException(
            call.toolName(),
            null,
            "expected the arguments of tool \""
                + call.toolName()
                + "\" to be JSON values, found one that cannot be written: "
                + io.getMessage());
      }
      input = bytes.toByteArray();
    }
    return Base64.getUrlEncoder().withoutPadding().encodeToString(sha256(input));
  }

  private static byte[] sha256(byte[] input) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(input);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every Java platform", e);
    }
  }

  @Override
  public String toString() {
    return switch (kind) {
      case DIGEST -> "ResourceBinding.argumentsDigest()";
      case TEMPLATE -> "ResourceBinding.template(\"" + template + "\")";
      case EXTRACTOR -> "ResourceBinding.extractor(" + extractor + ")";
      case UNBOUND -> "ResourceBinding.unbound()";
    };
  }
}
