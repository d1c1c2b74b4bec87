package dev.agentauth.mcp;

import dev.agentauth.guard.GuardCall;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

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
 * (object, array, boolean, fraction) has no resource: {@link #resourceFor(ToolCall)} throws {@link
 * ResourceBindingException} and the guard denies the call locally with reason {@value
 * ResourceBindingException#REASON}. Two placeholders must be separated by at least one character
 * that an encoded value cannot contain (anything but {@code A-Z a-z 0-9 - . _ ~ %}), else two calls
 * could share a resource ({@code {a}{b}} with {@code 1,23} and {@code 12,3}).
 *
 * <p>The same bindings serve every adapter: this class is the MCP guard's face of {@link
 * dev.agentauth.guard.ResourceBinding}, whose extractors see a {@link ToolCall}.
 *
 * <p>Immutable and thread-safe.
 */
public final class ResourceBinding {

  /** The longest tool name whose digest resource fits the service's 256 characters. */
  static final int MAX_DIGEST_TOOL_NAME = dev.agentauth.guard.ResourceBinding.MAX_DIGEST_TOOL_NAME;

  private static final ResourceBinding DIGEST =
      new ResourceBinding(dev.agentauth.guard.ResourceBinding.argumentsDigest());
  private static final ResourceBinding UNBOUND =
      new ResourceBinding(dev.agentauth.guard.ResourceBinding.unbound());

  private final dev.agentauth.guard.ResourceBinding core;

  private ResourceBinding(dev.agentauth.guard.ResourceBinding core) {
    this.core = core;
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
    return new ResourceBinding(dev.agentauth.guard.ResourceBinding.template(template));
  }

  /**
   * Returns a binding computed by {@code extractor}, e.g. {@code call -> "mailbox:" +
   * call.stringArgument("mailbox")}. The function must return a value that differs whenever the
   * calls differ in what the user approves; returning {@code null} sends no resource, which widens
   * that call's approval to the whole scope (see {@link #unbound()}).
   */
  public static ResourceBinding extractor(Function<ToolCall, String> extractor) {
    return new ResourceBinding(
        dev.agentauth.guard.ResourceBinding.extractor(
            new McpExtractor(Objects.requireNonNull(extractor, "extractor"))));
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
    return core.placeholders();
  }

  /** Returns whether this is the {@link #unbound()} opt-out. */
  boolean isUnbound() {
    return core.isUnbound();
  }

  /** Returns whether this binding reads every argument ({@link #argumentsDigest()}). */
  boolean bindsAllArguments() {
    return core.bindsAllArguments();
  }

  /** Returns the framework-neutral binding this one stands for. */
  dev.agentauth.guard.ResourceBinding core() {
    return core;
  }

  /**
   * Returns the resource of {@code call}, or {@code null} for {@link #unbound()} (and when an
   * extractor returns {@code null}).
   *
   * @throws ResourceBindingException if a template's argument is missing or has no resource form,
   *     or the filled template is longer than 256 characters
   */
  public String resourceFor(ToolCall call) {
    Objects.requireNonNull(call, "call");
    try {
      return core.resourceFor(call.asGuardCall());
    } catch (ResourceBindingException e) {
      throw e;
    } catch (dev.agentauth.guard.ResourceBindingException e) {
      throw new ResourceBindingException(e.toolName(), e.argument(), e.getMessage());
    }
  }

  @Override
  public String toString() {
    return core.toString();
  }

  /** An MCP extractor, seen by the core: the call's {@link ToolCall}, named as the function. */
  private record McpExtractor(Function<ToolCall, String> fn)
      implements Function<GuardCall, String> {
    @Override
    public String apply(GuardCall call) {
      return fn.apply(ToolCall.of(call));
    }

    @Override
    public String toString() {
      return fn.toString();
    }
  }
}
