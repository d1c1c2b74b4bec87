package dev.agentauth.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.AgentAuthServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code login} and how a command finds its connection: profiles, then the environment. */
class ProfilesTest {
  static AgentAuthServer server;

  @TempDir Path home;

  @BeforeAll
  static void start() {
    server = AgentAuthServer.builder().port(0).build().start();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void loginWithAKeyFileStoresOnlyTheFilesPathWithMode0600() throws Exception {
    Path keyFile = home.resolve("key.txt");
    Files.writeString(keyFile, server.apiKey() + "\n");
    CliRunner cli = new CliRunner(home);

    CliRunner.Result login =
        cli.run("login", "--base-url", server.baseUrl(), "--api-key-file", keyFile.toString());

    assertThat(login.status()).as(login.toString()).isZero();
    assertThat(login.out()).contains("workspace " + server.workspaceId()).contains("'default'");
    Path config = home.resolve("agentauth/config.json");
    assertThat(Files.readString(config))
        .contains(keyFile.toAbsolutePath().toString())
        .doesNotContain(server.apiKey());
    assertThat(Files.getPosixFilePermissions(config))
        .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
    assertThat(home.resolve("agentauth/credentials.json")).doesNotExist();

    CliRunner.Result whoami = cli.run("whoami", "--json");
    assertThat(whoami.status()).as(whoami.toString()).isZero();
    assertThat(whoami.out()).contains("\"workspace_id\":\"" + server.workspaceId() + "\"");
    assertThat(whoami.out() + whoami.err()).doesNotContain(server.apiKey());
  }

  @Test
  void loginWithAnEnvironmentVariableStoresItsName() throws Exception {
    CliRunner cli = new CliRunner(home).env("MY_KEY", server.apiKey());

    CliRunner.Result login =
        cli.run(
            "login", "--profile", "ci", "--base-url", server.baseUrl(), "--api-key-env", "MY_KEY");

    assertThat(login.status()).as(login.toString()).isZero();
    assertThat(Files.readString(home.resolve("agentauth/config.json")))
        .contains("\"api_key_env\" : \"MY_KEY\"")
        .doesNotContain(server.apiKey());
    assertThat(cli.run("whoami", "--profile", "ci").status()).isZero();
    assertThat(cli.env(Cli.ENV_PROFILE, "ci").run("whoami").status()).isZero();
    // the default profile does not exist
    CliRunner.Result none = new CliRunner(home).run("whoami");
    assertThat(none.status()).isEqualTo(2);
    assertThat(none.err()).contains("agentauth login");
  }

  @Test
  void aKeyFromStandardInputGoesToTheCredentialsFileWithMode0600() throws Exception {
    CliRunner cli = new CliRunner(home).stdin(server.apiKey() + "\n");

    CliRunner.Result login = cli.run("login", "--base-url", server.baseUrl(), "--api-key-stdin");

    assertThat(login.status()).as(login.toString()).isZero();
    assertThat(login.out()).contains("credentials.json (mode 0600)");
    Path credentials = home.resolve("agentauth/credentials.json");
    assertThat(Files.readString(credentials)).contains(server.apiKey());
    assertThat(Files.getPosixFilePermissions(credentials))
        .isEqualTo(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));
    assertThat(Files.readString(home.resolve("agentauth/config.json")))
        .doesNotContain(server.apiKey());
    assertThat(new CliRunner(home).run("whoami").status()).isZero();
  }

  @Test
  void aKeyIsNeverAnArgument() {
    CliRunner.Result r =
        new CliRunner(home).run("login", "--base-url", server.baseUrl(), "--api-key", "sk_x");

    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("Unknown options: '--api-key'");
  }

  @Test
  void aLoginWithAKeyTheServiceRefusesSavesNothing() throws Exception {
    CliRunner.Result r =
        new CliRunner(home)
            .stdin("sk_not_a_key_of_this_server")
            .run("login", "--base-url", server.baseUrl(), "--api-key-stdin");

    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err()).contains("the API key was not accepted").doesNotContain("Exception");
    assertThat(home.resolve("agentauth/config.json")).doesNotExist();
  }

  @Test
  void withoutAProfileTheEnvironmentIsUsedSoCiNeedsNoLogin() {
    CliRunner.Result r =
        new CliRunner(home).connectTo(server.baseUrl(), server.apiKey()).run("whoami");

    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(r.out()).contains("environment").contains(server.workspaceId());

    CliRunner.Result noKey =
        new CliRunner(home).env(Cli.ENV_BASE_URL, server.baseUrl()).run("whoami");
    assertThat(noKey.status()).isEqualTo(2);
    assertThat(noKey.err()).contains("AGENTAUTH_API_KEY is not");
  }

  @Test
  void plainHttpToANonLoopbackHostIsRefusedBeforeSendingTheKey() {
    CliRunner.Result r =
        new CliRunner(home).connectTo("http://agentauth.example.com", "sk_abc").run("whoami");

    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("refusing plain http");
  }
}
