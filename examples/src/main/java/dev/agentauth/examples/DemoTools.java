package dev.agentauth.examples;

import dev.agentauth.mcp.ResourceBinding;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The three fake tools of {@link GuardedToolServer}: they only describe what a real tool would have
 * done. Nothing is sent, read or deleted.
 */
final class DemoTools {
  static final String SEND_EMAIL = "send_email";
  static final String READ_CALENDAR = "read_calendar";
  static final String DELETE_FILE = "delete_file";

  /** Characters a resource may not contain (decisions §2: no control characters). */
  private static final String NO_CONTROL_CHARACTERS = "^[^\\u0000-\\u001f\\u007f-\\u009f]*$";

  private DemoTools() {}

  /**
   * The three tools, unguarded. With {@code userIdArgument} every input schema declares the string
   * argument {@code user_id} (the stdio server reads the caller from it); without, the schemas have
   * no such argument (the HTTP server reads the caller from a trusted header).
   */
  static List<SyncToolSpecification> all(boolean userIdArgument) {
    return List.of(
        sendEmail(userIdArgument), readCalendar(userIdArgument), deleteFile(userIdArgument));
  }

  /**
   * What one approval of {@code delete_file} covers: the file, whatever else the call says. Its
   * checks carry the resource {@code file:<path>}, the path percent-encoded ({@code /srv/old.log}
   * is {@code file:%2Fsrv%2Fold.log}), so a confirmation of one file never deletes another. The
   * other tools keep the guard's default, a digest of all their arguments: an approval covers only
   * an identical call, and no recipient address or date is written into the signed receipts.
   */
  static final ResourceBinding DELETE_FILE_BINDING = ResourceBinding.template("file:{path}");

  private static SyncToolSpecification sendEmail(boolean userIdArgument) {
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put("to", string("Recipient address"));
    properties.put("subject", string("Subject line"));
    properties.put("body", string("Plain-text body"));
    Tool tool =
        tool(
            SEND_EMAIL,
            "Sends an e-mail on the user's behalf (demo: nothing is sent).",
            properties,
            List.of("to", "subject"),
            userIdArgument);
    return spec(
        tool,
        args ->
            "Sent e-mail to "
                + args.getOrDefault("to", "?")
                + " with subject \""
                + args.getOrDefault("subject", "")
                + "\" (demo: nothing was sent).");
  }

  private static SyncToolSpecification readCalendar(boolean userIdArgument) {
    Map<String, Object> properties = new LinkedHashMap<>();
    Map<String, Object> date =
        new LinkedHashMap<>(string("Day to read, YYYY-MM-DD; default today"));
    date.put("pattern", "^[0-9]{4}-[0-9]{2}-[0-9]{2}$");
    properties.put("date", date);
    Tool tool =
        tool(
            READ_CALENDAR,
            "Reads the user's calendar for one day (demo: fixed events).",
            properties,
            List.of(),
            userIdArgument);
    return spec(
        tool,
        args -> {
          Object day = args.get("date");
          String d = day instanceof String s ? s : LocalDate.now(ZoneOffset.UTC).toString();
          return "Calendar for "
              + d
              + ": 09:30 Team stand-up; 13:00 Lunch with Ada; 16:00 Design review (demo data).";
        });
  }

  private static SyncToolSpecification deleteFile(boolean userIdArgument) {
    Map<String, Object> properties = new LinkedHashMap<>();
    Map<String, Object> path = new LinkedHashMap<>(string("Path of the file to delete"));
    path.put("minLength", 1);
    path.put("maxLength", 200);
    path.put("pattern", NO_CONTROL_CHARACTERS);
    properties.put("path", path);
    Tool tool =
        tool(
            DELETE_FILE,
            "Deletes a file (demo: nothing is deleted). Needs the user's confirmation.",
            properties,
            List.of("path"),
            userIdArgument);
    return spec(tool, args -> "Deleted " + args.get("path") + " (demo: nothing was deleted).");
  }

  private static Map<String, Object> string(String description) {
    return Map.of("type", "string", "description", description);
  }

  private static Tool tool(
      String name,
      String description,
      Map<String, Object> properties,
      List<String> required,
      boolean userIdArgument) {
    Map<String, Object> props = new LinkedHashMap<>();
    List<String> req = new ArrayList<>(required);
    if (userIdArgument) {
      // Not in "required": a call without it reaches the guard, which denies it locally with
      // missing_user_id (a structured answer), rather than failing schema validation.
      props.put(
          "user_id",
          string(
              "Opaque id of the user on whose behalf the agent acts. Always pass it. Supplied by"
                  + " the model, so caller-controlled: see the server's documentation."));
    }
    props.putAll(properties);
    Map<String, Object> schema = new LinkedHashMap<>();
    schema.put("type", "object");
    schema.put("properties", props);
    if (!req.isEmpty()) {
      schema.put("required", req);
    }
    return Tool.builder(name, schema).description(description).build();
  }

  private interface Body {
    String run(Map<String, Object> arguments);
  }

  private static SyncToolSpecification spec(Tool tool, Body body) {
    return SyncToolSpecification.builder()
        .tool(tool)
        .callHandler(
            (exchange, request) ->
                CallToolResult.builder().addTextContent(body.run(arguments(request))).build())
        .build();
  }

  private static Map<String, Object> arguments(CallToolRequest request) {
    return request.arguments() == null ? Map.of() : request.arguments();
  }
}
