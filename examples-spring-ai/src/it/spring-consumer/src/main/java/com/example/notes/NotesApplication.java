package com.example.notes;

import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.annotation.ToolParam;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/** A notes MCP server: one tool, guarded by agentauth's starter from application.yml. */
@SpringBootApplication
public class NotesApplication {

  public static void main(String[] args) {
    SpringApplication.run(NotesApplication.class, args);
  }

  /** The tools. */
  public static class NotesTools {
    @Tool(name = "read_note", description = "Reads a note")
    public String readNote(@ToolParam(description = "The note's id") String id) {
      return "note " + id + ": call the bank";
    }
  }

  @Bean
  ToolCallbackProvider notesTools() {
    return MethodToolCallbackProvider.builder().toolObjects(new NotesTools()).build();
  }
}
