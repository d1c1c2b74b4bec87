package dev.agentauth.server;

import static dev.agentauth.server.CheckFixtures.authorize;
import static dev.agentauth.server.CheckFixtures.check;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.server.ServerHarness.Resp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in a real browser (headless Chromium through Selenium and Debian's chromium-driver)
 * against the embedded server: each role sees only what it may do, an approver approves from an
 * escalation's deep link and the agent's re-check is allowed, a revocation, verdicts computed in
 * the page (a real receipt valid, a changed character invalid at SIGNATURE, an authorization's
 * chain), and the offline verifier opened from disk. One browser session serves every test; a
 * screenshot of each page lands in {@code target/console-screenshots/}. Skipped, saying why, where
 * Chromium or its driver is not installed.
 */
class ConsoleBrowserIT {
  private static final Path SHOTS = Path.of("target", "console-screenshots");
  private static final Duration WAIT = Duration.ofSeconds(20);

  private static ServerHarness h;
  private static WebDriver driver;
  private static WebDriverWait wait;
  private static String full;
  private static String app;
  private static String agent;
  private static String approver;
  private static String auditor;

  @BeforeAll
  static void start() throws IOException {
    Path chromium =
        firstExecutable(
            System.getenv("CHROME_BIN"), "/usr/bin/chromium", "/usr/bin/chromium-browser");
    Path chromedriver =
        firstExecutable(
            System.getenv("CHROMEDRIVER"),
            "/usr/bin/chromedriver",
            "/usr/lib/chromium/chromedriver");
    assumeTrue(
        chromium != null && chromedriver != null,
        "no Chromium and chromium-driver (apt-get install chromium chromium-driver): the console's"
            + " browser tests were not run");
    int port;
    try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
      port = free.getLocalPort();
    }
    h =
        ServerHarness.start(
            AgentAuthServer.builder()
                .port(port)
                .publicUrl("http://127.0.0.1:" + port)
                .webhooksAllowLoopback(true));
    // The server's test clock at the browser's time, so expiries read as they would in use.
    h.clock.set(Instant.now().truncatedTo(ChronoUnit.SECONDS));
    full = h.apiKey();
    app = key("{\"role\":\"app\",\"name\":\"console app\"}");
    agent = key("{\"role\":\"agent\",\"name\":\"console agent\"}");
    approver = key("{\"role\":\"approver\",\"approver_id\":\"appr_maria\",\"name\":\"Maria\"}");
    auditor = key("{\"role\":\"auditor\",\"name\":\"console auditor\"}");

    Path profile = Files.createTempDirectory("console-chromium");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(chromium.toString());
    options.addArguments(
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1280,900",
        "--user-data-dir=" + profile);
    ChromeDriverService service =
        new ChromeDriverService.Builder().usingDriverExecutable(chromedriver.toFile()).build();
    driver = new ChromeDriver(service, options);
    // Pages re-render (the inbox every 5 s): an element found a moment ago may be replaced.
    wait = new WebDriverWait(driver, WAIT);
    wait.ignoring(StaleElementReferenceException.class);
    Files.createDirectories(SHOTS);
  }

  @AfterAll
  static void stop() {
    if (driver != null) {
      driver.quit();
    }
    if (h != null) {
      h.close();
    }
  }

  // ---- roles

  @Test
  void eachRoleSeesOnlyThePagesAndActionsItMayUse() {
    String authorizationId =
        authorize(
            h, "{\"scopes\":[{\"name\":\"pay.send\"}],\"requires_escalation_for\":[\"pay.send\"]}");
    String escalationId =
        check(h, authorizationId, "pay.send").result().path("escalation_id").asText();

    signIn(agent, "agent", "");
    assertThat(nav()).containsExactly("Authorizations", "Receipts", "Verify", "Keys");
    open("#/escalations");
    assertThat(text(By.id("main"))).contains("cannot open this page");
    open("#/authorizations/" + authorizationId);
    waitFor(By.id("chain-verdict"));
    assertThat(driver.findElements(By.id("revoke"))).isEmpty();

    signIn(auditor, "auditor", "");
    assertThat(nav())
        .containsExactly("Escalations", "Authorizations", "Receipts", "Verify", "Keys");
    open("#/escalations/" + escalationId);
    waitFor(By.id("esc-" + escalationId));
    assertThat(driver.findElements(By.id("approve-" + escalationId))).isEmpty();

    signIn(app, "app", "");
    assertThat(nav())
        .containsExactly("Escalations", "Authorizations", "Receipts", "Verify", "Keys", "Webhooks");
    open("#/escalations/" + escalationId);
    waitFor(By.id("esc-" + escalationId));
    assertThat(driver.findElements(By.id("approve-" + escalationId))).isEmpty();
    open("#/authorizations/" + authorizationId);
    waitFor(By.id("revoke"));

    signIn(approver, "approver", "");
    assertThat(nav())
        .containsExactly("Escalations", "Authorizations", "Receipts", "Verify", "Keys");
    assertThat(text(By.id("who-approver"))).isEqualTo("as appr_maria");
    open("#/escalations/" + escalationId);
    waitFor(By.id("approve-" + escalationId));
    open("#/authorizations/" + authorizationId);
    waitFor(By.id("chain-verdict"));
    assertThat(driver.findElements(By.id("revoke"))).isEmpty();

    signIn(full, "full", "");
    assertThat(nav())
        .containsExactly("Escalations", "Authorizations", "Receipts", "Verify", "Keys", "Webhooks");
    open("#/escalations/" + escalationId);
    waitFor(By.id("approve-" + escalationId));
    assertThat(driver.findElements(By.id("by-" + escalationId)))
        .as("a full key names who resolves")
        .hasSize(1);
  }

  @Test
  void anUnknownKeyIsRefusedAtSignIn() {
    driver.get(h.server.baseUrl() + "/console/");
    ((JavascriptExecutor) driver).executeScript("sessionStorage.clear()");
    driver.navigate().refresh();
    waitFor(By.id("api-key")).sendKeys("sk_not_a_key");
    driver.findElement(By.id("signin-button")).click();
    wait.until(
        ExpectedConditions.textToBePresentInElementLocated(
            By.id("signin-error"), "unknown, revoked or expired"));
    screenshot("01-sign-in");
  }

  // ---- escalations

  @Test
  void approverApprovesFromTheDeepLinkAndTheRecheckIsAllowed() {
    String authorizationId =
        authorize(
            h,
            "{\"user_id\":\"usr_5f2c91\",\"agent_id\":\"agent_travel_desk\","
                + "\"scopes\":[{\"name\":\"files.delete\",\"constraints\":{\"resource_pattern\":\"drive:/shared/*\"}}],"
                + "\"requires_escalation_for\":[\"files.delete\"],"
                + "\"escalation_targets\":{\"files.delete\":\"security\"}}");
    JsonNode escalate =
        check(h, authorizationId, "files.delete").resource("drive:/shared/q3-plan.xlsx").result();
    assertThat(escalate.path("decision").asText()).isEqualTo("escalate");
    String escalationId = escalate.path("escalation_id").asText();

    // The link a webhook's console_url carries, opened before signing in.
    driver.get(h.server.baseUrl() + "/console/#/escalations/" + escalationId);
    ((JavascriptExecutor) driver).executeScript("sessionStorage.clear()");
    driver.navigate().refresh();
    waitFor(By.id("api-key")).sendKeys(approver);
    driver.findElement(By.id("signin-button")).click();
    wait.until(d -> d.findElement(By.id("esc-" + escalationId)).getText().contains("usr_5f2c91"));
    assertThat(text(By.id("esc-" + escalationId)))
        .contains("usr_5f2c91")
        .contains("agent_travel_desk")
        .contains("files.delete")
        .contains("drive:/shared/q3-plan.xlsx");
    wait.until(d -> d.findElement(By.id("esc-" + escalationId)).getText().contains("usr_5f2c91"));
    screenshot("02-escalations");
    driver.findElement(By.id("note-" + escalationId)).sendKeys("checked with the file owner");
    driver.findElement(By.id("approve-" + escalationId)).click();
    wait.until(
        d ->
            "approved"
                .equals(d.findElement(By.id("esc-" + escalationId)).getAttribute("data-status")));

    JsonNode escalation = h.get("/v1/escalations/" + escalationId).body();
    assertThat(escalation.path("status").asText()).isEqualTo("approved");
    assertThat(escalation.path("resolved_by").asText()).isEqualTo("appr_maria");
    assertThat(escalation.path("note").asText()).isEqualTo("checked with the file owner");
    JsonNode recheck =
        check(h, authorizationId, "files.delete").resource("drive:/shared/q3-plan.xlsx").result();
    assertThat(CheckFixtures.outcome(recheck)).startsWith("allow/");
  }

  // ---- authorizations

  @Test
  void revokingAsksForConfirmationThenRevokes() {
    String authorizationId =
        authorize(
            h,
            "{\"user_id\":\"usr_revoke\",\"agent_id\":\"agent_mail\",\"scopes\":[{\"name\":\"email.send\"}],\"budget_limit_micros\":5000000}");
    check(h, authorizationId, "email.send").cost(1_250_000).ok();
    signIn(app, "app", "#/authorizations/" + authorizationId);
    waitFor(By.id("revoke"));
    assertThat(text(By.id("budget"))).isEqualTo("1.25 spent of 5");
    screenshot("04-authorization");
    driver.findElement(By.id("revoke-notes")).sendKeys("offboarding");

    driver.findElement(By.id("revoke")).click();
    waitFor(By.id("confirm-cancel")).click();
    assertThat(h.get("/v1/authorizations/" + authorizationId).body().path("status").asText())
        .isEqualTo("active");

    driver.findElement(By.id("revoke")).click();
    waitFor(By.id("confirm-ok")).click();
    wait.until(
        d ->
            d.findElements(By.id("revoke")).isEmpty()
                && d.findElement(By.tagName("h1")).getText().contains("revoked"));
    assertThat(h.get("/v1/authorizations/" + authorizationId).body().path("status").asText())
        .isEqualTo("revoked");
  }

  @Test
  void theAuthorizationListFiltersAndItsChainVerifiesInThePage() {
    String authorizationId =
        authorize(
            h,
            "{\"user_id\":\"usr_chain\",\"agent_id\":\"agent_chain\",\"scopes\":[{\"name\":\"calendar.read\"}]}");
    check(h, authorizationId, "calendar.read").ok();
    check(h, authorizationId, "email.send").ok();
    h.chainIds(authorizationId).forEach(h::signedReceipt);

    signIn(auditor, "auditor", "#/authorizations");
    waitFor(By.id("f-user")).sendKeys("usr_chain");
    driver.findElement(By.cssSelector("form[role=search] button[type=submit]")).click();
    wait.until(d -> d.findElement(By.id("authorizations")).getText().contains(authorizationId));
    assertThat(text(By.id("authorizations"))).doesNotContain("usr_revoke");
    screenshot("03-authorizations");

    open("#/authorizations/" + authorizationId);
    wait.until(d -> d.findElement(By.id("chain-verdict")).getText().contains("chain valid"));
    assertThat(driver.findElements(By.cssSelector("#timeline [data-verdict=valid]"))).hasSize(3);
  }

  // ---- receipts and verification

  @Test
  void aRealReceiptIsValidAndOneChangedCharacterIsInvalidAtSignature() {
    String authorizationId =
        authorize(h, "{\"user_id\":\"usr_verify\",\"scopes\":[{\"name\":\"email.send\"}]}");
    String receiptId =
        check(h, authorizationId, "email.send")
            .resource("mailbox:team-ops")
            .result()
            .path("receipt")
            .path("receipt_id")
            .asText();
    JsonNode receipt = h.signedReceipt(receiptId);

    signIn(auditor, "auditor", "#/receipts/" + receiptId);
    wait.until(
        d ->
            "valid"
                .equals(
                    d.findElement(By.cssSelector("#receipt-verdict .verdict"))
                        .getAttribute("data-verdict")));
    screenshot("06-receipt");

    open("#/receipts");
    wait.until(
        d -> "valid".equals(attribute(d, "#verdict-" + receiptId + " .verdict", "data-verdict")));
    screenshot("05-receipts");

    open("#/verify");
    String original = receipt.toString();
    String changed = original.replace("mailbox:team-ops", "mailbox:team-opz");
    assertThat(changed).isNotEqualTo(original);
    paste(original);
    wait.until(d -> "valid".equals(attribute(d, "#paste-result .verdict", "data-verdict")));
    paste(changed);
    wait.until(d -> "invalid".equals(attribute(d, "#paste-result .verdict", "data-verdict")));
    assertThat(attribute(driver, "#paste-result .verdict", "data-step")).isEqualTo("SIGNATURE");
    assertThat(text(By.id("paste-message"))).contains("signature verification failed");
    ((JavascriptExecutor) driver)
        .executeScript("document.getElementById('paste-title').scrollIntoView()");
    screenshot("07-verify");
  }

  @Test
  void pinningAnotherKeyFailsAtKeyNotFound() {
    String authorizationId =
        authorize(h, "{\"user_id\":\"usr_pin\",\"scopes\":[{\"name\":\"email.send\"}]}");
    String receiptId =
        check(h, authorizationId, "email.send")
            .result()
            .path("receipt")
            .path("receipt_id")
            .asText();
    String text = h.signedReceipt(receiptId).toString();

    signIn(auditor, "auditor", "#/keys");
    String fingerprint = waitFor(By.cssSelector("code.fingerprint")).getText();
    assertThat(fingerprint).matches("SHA256:[A-Za-z0-9_-]{43}");
    screenshot("08-keys");

    open("#/verify");
    setPins("SHA256:" + "A".repeat(43));
    paste(text);
    wait.until(d -> "invalid".equals(attribute(d, "#paste-result .verdict", "data-verdict")));
    assertThat(text(By.id("paste-message"))).contains("holds none of the pinned keys");
    setPins(fingerprint);
    paste(text);
    wait.until(d -> "valid".equals(attribute(d, "#paste-result .verdict", "data-verdict")));
    setPins("");
  }

  @Test
  void offlineVerificationOpenedFromDiskNeedsNoServer() throws IOException {
    String authorizationId =
        authorize(h, "{\"user_id\":\"usr_offline\",\"scopes\":[{\"name\":\"email.send\"}]}");
    check(h, authorizationId, "email.send").resource("mailbox:team-ops").ok();
    check(h, authorizationId, "email.send").resource("mailbox:team-dev").ok();
    List<String> lines = new ArrayList<>();
    for (String id : h.chainIds(authorizationId)) {
      lines.add(h.signedReceipt(id).toString());
    }
    lines.set(2, lines.get(2).replace("mailbox:team-dev", "mailbox:team-dew"));
    Path dir = Files.createTempDirectory("console-offline");
    Path keys = Files.writeString(dir.resolve("keys.json"), h.keys(h.workspaceId()).toString());
    Path receipts =
        Files.writeString(
            dir.resolve("receipts.ndjson"),
            String.join("\n", lines) + "\n",
            StandardCharsets.UTF_8);
    Path page = Path.of("target", "classes", "console", "offline.html").toAbsolutePath();
    assertThat(page).exists();

    driver.get(page.toUri().toString());
    waitFor(By.id("offline-keys")).sendKeys(keys.toString());
    driver.findElement(By.id("offline-receipts")).sendKeys(receipts.toString());
    wait.until(ExpectedConditions.elementToBeClickable(By.id("offline-verify"))).click();
    wait.until(
        ExpectedConditions.textToBePresentInElementLocated(
            By.id("offline-summary"), "2 of 3 valid"));
    List<WebElement> verdicts = driver.findElements(By.cssSelector("#offline-rows .verdict"));
    assertThat(verdicts)
        .extracting(v -> v.getAttribute("data-verdict"))
        .containsExactly("valid", "valid", "invalid");
    assertThat(verdicts.get(2).getAttribute("data-step")).isEqualTo("SIGNATURE");
    assertThat(text(By.id("offline-chains"))).contains("INVALID_RECEIPT");
    screenshot("09-offline");
  }

  // ---- webhooks

  @Test
  void theWebhooksPageAddsAWebhookShowsItsSecretOnceAndItsDeliveries() throws Exception {
    Resp probe = h.get("/v1/webhooks");
    signIn(full, "full", "#/webhooks");
    if (probe.status() == 404) {
      waitFor(By.id("webhooks-unavailable"));
      screenshot("10-webhooks");
    }
    assumeTrue(
        probe.status() != 404,
        "this server answers 404 for GET /v1/webhooks (no webhooks endpoints): the Webhooks page"
            + " was checked only for saying so");
    try (WebhookReceiver receiver = WebhookReceiver.ok()) {
      waitFor(By.id("wh-url")).sendKeys(receiver.url());
      driver.findElement(By.id("wh-add")).click();
      assertThat(waitFor(By.id("wh-secret")).getText()).startsWith("whsec_");
      driver.findElement(By.id("wh-done")).click();
      wait.until(d -> d.findElement(By.id("main")).getText().contains(receiver.url()));
      assertThat(text(By.id("main"))).doesNotContain("whsec_");
      String authorizationId =
          authorize(
              h,
              "{\"scopes\":[{\"name\":\"pay.send\"}],\"requires_escalation_for\":[\"pay.send\"]}");
      check(h, authorizationId, "pay.send").resource("invoice:7").result();
      receiver.next(WAIT);
      driver.findElement(By.cssSelector("button.secondary[aria-label^='Deliveries']")).click();
      wait.until(
          d -> d.findElement(By.id("webhook-detail")).getText().contains("escalation.created"));
      screenshot("10-webhooks");
    } finally {
      removeWebhooks();
    }
  }

  @Test
  void anEscalationWebhookCarriesTheConsoleUrlWhereTheApproverApproves() throws Exception {
    try (WebhookReceiver receiver = WebhookReceiver.ok()) {
      Resp hook =
          h.post(
              "/v1/webhooks",
              h.json("{\"url\":\"" + receiver.url() + "\",\"events\":[\"escalation.created\"]}"));
      assumeTrue(hook.status() != 404, "no webhooks endpoints on this server");
      assertThat(hook.status()).as(hook.raw()).isEqualTo(201);
      String authorizationId =
          authorize(
              h,
              "{\"user_id\":\"usr_hook\",\"scopes\":[{\"name\":\"hr.records.export\"}],\"requires_escalation_for\":[\"hr.records.export\"]}");
      String escalationId =
          check(h, authorizationId, "hr.records.export")
              .resource("hr:team-7")
              .result()
              .path("escalation_id")
              .asText();
      String consoleUrl = null;
      while (consoleUrl == null) {
        WebhookReceiver.Received event = receiver.next(WAIT);
        assertThat(event).as("escalation.created for " + escalationId).isNotNull();
        JsonNode data = h.mapper.readTree(event.body()).path("data");
        if (escalationId.equals(data.path("escalation_id").asText())) {
          consoleUrl = data.path("console_url").asText();
        }
      }
      assertThat(consoleUrl)
          .isEqualTo(h.server.baseUrl() + "/console/#/escalations/" + escalationId);

      driver.get(consoleUrl);
      ((JavascriptExecutor) driver).executeScript("sessionStorage.clear()");
      driver.navigate().refresh();
      waitFor(By.id("api-key")).sendKeys(approver);
      driver.findElement(By.id("signin-button")).click();
      waitFor(By.id("approve-" + escalationId)).click();
      wait.until(
          d ->
              "approved"
                  .equals(d.findElement(By.id("esc-" + escalationId)).getAttribute("data-status")));
      assertThat(
              CheckFixtures.outcome(
                  check(h, authorizationId, "hr.records.export").resource("hr:team-7").result()))
          .startsWith("allow/");
    } finally {
      removeWebhooks();
    }
  }

  /** Removes every webhook, so no later test's events go to a receiver that has closed. */
  private static void removeWebhooks() {
    for (JsonNode w : h.get("/v1/webhooks").body().path("webhooks")) {
      h.delete("/v1/webhooks/" + w.path("id").asText());
    }
  }

  // ---- phone width

  @Test
  void pagesAreReadableAtPhoneWidth() {
    String authorizationId =
        authorize(
            h,
            "{\"user_id\":\"usr_phone\",\"scopes\":[{\"name\":\"pay.send\"}],\"requires_escalation_for\":[\"pay.send\"]}");
    String escalationId =
        check(h, authorizationId, "pay.send")
            .resource("invoice:42")
            .result()
            .path("escalation_id")
            .asText();
    Dimension laptop = driver.manage().window().getSize();
    try {
      driver.manage().window().setSize(new Dimension(390, 844));
      signIn(approver, "approver", "#/escalations/" + escalationId);
      waitFor(By.id("approve-" + escalationId));
      Number overflow =
          (Number)
              ((JavascriptExecutor) driver)
                  .executeScript(
                      "return document.documentElement.scrollWidth - document.documentElement.clientWidth");
      assertThat(overflow.intValue()).as("horizontal overflow in pixels").isLessThanOrEqualTo(0);
      screenshot("11-phone-escalations");
    } finally {
      driver.manage().window().setSize(laptop);
    }
  }

  // ---- helpers

  private static String key(String body) {
    return h.newKey(body).path("api_key").asText();
  }

  private static void signIn(String key, String role, String hash) {
    driver.get(h.server.baseUrl() + "/console/" + hash);
    ((JavascriptExecutor) driver).executeScript("sessionStorage.clear()");
    driver.navigate().refresh();
    waitFor(By.id("api-key")).sendKeys(key);
    driver.findElement(By.id("signin-button")).click();
    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("who-role"), role));
  }

  private static void open(String hash) {
    ((JavascriptExecutor) driver).executeScript("location.hash = arguments[0]", hash);
    wait.until(
        d ->
            hash.startsWith("#/" + d.findElement(By.tagName("body")).getAttribute("data-page"))
                && !d.findElement(By.id("main")).getText().isBlank());
  }

  private static List<String> nav() {
    return driver.findElements(By.cssSelector("#nav a")).stream().map(WebElement::getText).toList();
  }

  private static WebElement waitFor(By by) {
    return wait.until(ExpectedConditions.visibilityOfElementLocated(by));
  }

  private static String text(By by) {
    return driver.findElement(by).getText();
  }

  private static String attribute(WebDriver d, String css, String name) {
    List<WebElement> found = d.findElements(By.cssSelector(css));
    return found.isEmpty() ? null : found.get(0).getAttribute(name);
  }

  private static void paste(String text) {
    WebElement area = waitFor(By.id("paste-receipt"));
    ((JavascriptExecutor) driver)
        .executeScript(
            "arguments[0].value = arguments[1]; document.getElementById('paste-result').replaceChildren()",
            area,
            text);
    driver.findElement(By.id("verify-paste")).click();
  }

  private static void setPins(String pins) {
    WebElement area = waitFor(By.id("pins"));
    area.clear();
    area.sendKeys(pins);
    driver.findElement(By.id("save-pins")).click();
  }

  private static void screenshot(String name) {
    byte[] png = ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES);
    try {
      Files.write(SHOTS.resolve(name + ".png"), png);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path firstExecutable(String... candidates) {
    for (String c : candidates) {
      if (c != null && !c.isBlank() && Files.isExecutable(Path.of(c))) {
        return Path.of(c);
      }
    }
    return null;
  }
}
