package dev.agentauth.examples.spring;

import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.annotation.ToolParam;
import org.springframework.stereotype.Component;

/** An email tool, as a Spring AI {@code @Tool} method (exposed through a ToolCallbackProvider). */
@Component
public class EmailTools {

  @Tool(name = "send_email", description = "Sends an email on the user's behalf")
  public String sendEmail(
      @ToolParam(description = "Recipient address") String to,
      @ToolParam(description = "Message body") String body) {
    return "sent to " + to;
  }
}
