package dev.agentauth.spring.autoconfigure;

import dev.agentauth.mcp.AgentAuthToolGuard;
import dev.agentauth.mcp.ResourceBinding;
import dev.agentauth.spring.AgentAuthToolCallbacks;
import dev.agentauth.spring.autoconfigure.properties.AgentAuthProperties;
import dev.agentauth.spring.autoconfigure.properties.AgentAuthProperties.ToolProperties;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * What resource each tool's checks carry, from {@code agentauth.tools.<tool>.*}: a template such as
 * {@code notes:{id}}, an explicit opt-out ({@code unbound: true}), or, for every tool not
 * configured, the guard's default (the tool's name and a digest of the arguments). Checked at
 * startup, each mistake stopping the application with the property to fix: a malformed template, a
 * placeholder that is not an argument of the tool, a template for a tool that does not exist, and
 * both a template and the opt-out on one tool; and a tool name in {@code agentauth.mcp.tool-scopes}
 * that misspells a tool's (a name no MCP tool has and no misspelling is only logged: it may be a
 * ChatClient's tool, guarded later).
 *
 * <p>The tool-name check runs once every singleton exists, and only when the MCP server exposes
 * tools: the tools a ChatClient calls are known only as the application guards them, so names
 * guarded through {@link AgentAuthToolCallbacks} by then count too, and an application without MCP
 * tools is not checked. Thread-safe.
 */
final class ToolBindings implements SmartInitializingSingleton {
  private static final Logger log = LoggerFactory.getLogger(ToolBindings.class);

  private final Map<String, ResourceBinding> bindings;
  private final Map<String, String> templates;
  private final Set<String> scopedTools;
  private final Set<String> seen = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean mcpTools = new AtomicBoolean();

  private ToolBindings(
      Map<String, ResourceBinding> bindings, Map<String, String> templates, Set<String> scoped) {
    this.bindings = Collections.unmodifiableMap(bindings);
    this.templates = Collections.unmodifiableMap(templates);
    this.scopedTools = Set.copyOf(scoped);
  }

  /**
   * Reads {@code agentauth.tools}.
   *
   * @throws AgentAuthConfigurationException naming the property of a malformed or contradictory
   *     entry
   */
  static ToolBindings from(Map<String, ToolProperties> tools) {
    return from(tools, Set.of());
  }

  /**
   * Reads {@code agentauth.tools}, and remembers the tool names {@code agentauth.mcp.tool-scopes}
   * maps, to check them as those of {@code agentauth.tools} once every singleton exists.
   *
   * @throws AgentAuthConfigurationException naming the property of a malformed or contradictory
   *     entry
   */
  static ToolBindings from(Map<String, ToolProperties> tools, Set<String> scopedTools) {
    Map<String, ResourceBinding> bindings = new LinkedHashMap<>();
    Map<String, String> templates = new LinkedHashMap<>();
    for (Map.Entry<String, ToolProperties> e : tools.entrySet()) {
      String tool = e.getKey();
      String property = AgentAuthProperties.PREFIX + ".tools." + tool;
      String template = e.getValue().getResource();
      boolean unbound = e.getValue().isUnbound();
      if (template != null && unbound) {
        throw new AgentAuthConfigurationException(
            property
                + ".resource and "
                + property
                + ".unbound are both set: a tool's checks either carry a resource or none.",
            "Remove " + property + ".unbound to bind approvals to the template (recommended).");
      }
      if (unbound) {
        bindings.put(tool, ResourceBinding.unbound());
      } else if (template != null) {
        if (template.isBlank()) {
          throw new AgentAuthConfigurationException(
              property + ".resource is blank: expected a resource template such as notes:{id}.",
              "Set "
                  + property
                  + ".resource to a template, or remove it for the default binding (the tool's"
                  + " name and a digest of its arguments).");
        }
        try {
          bindings.put(tool, ResourceBinding.template(template));
        } catch (IllegalArgumentException malformed) {
          throw new AgentAuthConfigurationException(
              property
                  + ".resource=\""
                  + template
                  + "\" is not a resource template: "
                  + malformed.getMessage(),
              "Write each placeholder as {argument}, naming a top-level argument of "
                  + tool
                  + " (e.g. notes:{id}), with { and } used for nothing else.");
        }
        templates.put(tool, template);
      }
    }
    return new ToolBindings(bindings, templates, scopedTools);
  }

  /** Returns the configured bindings, by tool name (tools not listed get the guard's default). */
  Map<String, ResourceBinding> bindings() {
    return bindings;
  }

  /** Adds every configured binding to {@code builder}. */
  AgentAuthToolGuard.Builder applyTo(AgentAuthToolGuard.Builder builder) {
    bindings.forEach(builder::resourceBinding);
    return builder;
  }

  /**
   * Checks, before the tool is wrapped, that every placeholder of its template is an argument of
   * its input schema, and records the tool as existing.
   *
   * @param inputSchema the tool's input schema, as MCP carries it (a JSON object)
   * @param mcp whether the tool is one of the MCP server's
   * @throws AgentAuthConfigurationException naming the property and the tool's arguments
   */
  void requireArguments(String tool, Map<String, Object> inputSchema, boolean mcp) {
    seen.add(tool);
    if (mcp) {
      mcpTools.set(true);
    }
    ResourceBinding binding = bindings.get(tool);
    String template = templates.get(tool);
    if (binding == null || template == null) {
      return;
    }
    Set<String> arguments = argumentNames(inputSchema);
    List<String> unknown = new ArrayList<>();
    for (String placeholder : binding.placeholders()) {
      if (!arguments.contains(placeholder)) {
        unknown.add(placeholder);
      }
    }
    if (!unknown.isEmpty()) {
      String property = AgentAuthProperties.PREFIX + ".tools." + tool + ".resource";
      throw new AgentAuthConfigurationException(
          property
              + "=\""
              + template
              + "\" names "
              + (unknown.size() == 1 ? "placeholder {" + unknown.get(0) + "}" : unknown)
              + ", which is not an argument of tool "
              + tool
              + " (its arguments: "
              + (arguments.isEmpty() ? "none" : String.join(", ", arguments))
              + ").",
          "Name only top-level arguments of " + tool + " in " + property + ".");
    }
  }

  private static Set<String> argumentNames(Map<String, Object> inputSchema) {
    Object properties = inputSchema == null ? null : inputSchema.get("properties");
    Set<String> names = new TreeSet<>();
    if (properties instanceof Map<?, ?> map) {
      map.keySet().forEach(k -> names.add(String.valueOf(k)));
    }
    return names;
  }

  /**
   * Once every singleton exists: an entry of {@code agentauth.tools} naming no tool of the MCP
   * server (nor one guarded for a ChatClient by then) stops the application.
   */
  @Override
  public void afterSingletonsInstantiated() {
    if (!mcpTools.get()) {
      return;
    }
    Set<String> unknown = new TreeSet<>(bindings.keySet());
    unknown.removeAll(seen);
    if (!unknown.isEmpty()) {
      String tool = unknown.iterator().next();
      throw new AgentAuthConfigurationException(
          AgentAuthProperties.PREFIX
              + ".tools."
              + tool
              + " configures a tool that does not exist: the guarded tools are "
              + new TreeSet<>(seen)
              + ".",
          "Correct the tool name in "
              + AgentAuthProperties.PREFIX
              + ".tools."
              + tool
              + ", or remove the entry.");
    }
    Set<String> unscoped = new TreeSet<>(scopedTools);
    unscoped.removeAll(seen);
    String property = AgentAuthProperties.PREFIX + ".mcp.tool-scopes";
    for (String name : unscoped) {
      String near = nearest(name, seen);
      if (near != null) {
        throw new AgentAuthConfigurationException(
            property
                + "."
                + name
                + " maps a tool the application does not have; its tool "
                + near
                + " is checked under its default scope instead. The guarded tools are "
                + new TreeSet<>(seen)
                + ".",
            "Correct the tool name in "
                + property
                + "."
                + name
                + " (write it as tools/list shows it: "
                + near
                + "?), or remove the entry.");
      }
    }
    if (!unscoped.isEmpty()) {
      log.info(
          "agentauth: {} maps {} {}, which no MCP tool is named: fine for tools a ChatClient calls,"
              + " else check the names (the MCP tools: {})",
          property,
          unscoped.size() == 1 ? "tool" : "tools",
          unscoped,
          new TreeSet<>(seen));
    }
  }

  /**
   * Returns the tool {@code name} most likely misspells: the same but for case, {@code -} and
   * {@code _}, or one edit away (two for names of 8 characters or more); {@code null} if none.
   */
  static String nearest(String name, Set<String> tools) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String tool : new TreeSet<>(tools)) {
      int d = normalized(name).equals(normalized(tool)) ? 0 : distance(name, tool);
      int allowed = Math.min(name.length(), tool.length()) >= 8 ? 2 : 1;
      if (d <= allowed && d < bestDistance) {
        best = tool;
        bestDistance = d;
      }
    }
    return best;
  }

  private static String normalized(String name) {
    return name.toLowerCase(java.util.Locale.ROOT).replace('-', '_');
  }

  /** Levenshtein distance. */
  private static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  @Override
  public String toString() {
    return "ToolBindings" + bindings.keySet();
  }
}
