package dev.agentauth.examples.spring;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.stereotype.Component;

/** Notes tools, as MCP tools: nothing in them knows about agentauth. */
@Component
public class NotesTools {

  private final Map<String, String> notes =
      new ConcurrentHashMap<>(Map.of("n1", "Call the bank", "n2", "Buy milk"));

  @McpTool(name = "search_notes", description = "Searches the user's notes")
  public List<String> searchNotes(@McpToolParam(description = "Text to look for") String query) {
    return notes.values().stream().filter(n -> n.contains(query)).toList();
  }

  /**
   * Deletes a note. Its checks carry the resource {@code notes:<id>} (application.yml), so an
   * approval of deleting one note never lets another be deleted.
   */
  @McpTool(name = "delete_note", description = "Deletes one of the user's notes")
  public String deleteNote(@McpToolParam(description = "The note's id, e.g. n1") String id) {
    return notes.remove(id) == null ? "no such note" : "deleted " + id;
  }
}
