package io.pagemark.pipelines.serve;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pagemark demo --serve} in a JVM of its own: after the demo it prints the server's URL and keeps serving
 * the demo's index; SIGTERM stops the server and DynamoDB Local, and the JVM exits.
 */
class DemoServeIT {
  @Test
  void theDemoServesItsIndexUntilSigterm(@TempDir Path dir) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Dpagemark.dynamodbLocal.home=" + System.getProperty("pagemark.dynamodbLocal.home"),
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", System.getProperty("java.class.path"),
        "io.pagemark.pipelines.Main", "demo", "--serve", "--port=0", "--items=400", "--products=8", "--page=3",
        "--output=" + dir.resolve("index")));
    Process demo = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    StringBuilder output = new StringBuilder();
    URI url = null;
    try {
      BufferedReader lines = new BufferedReader(new InputStreamReader(demo.getInputStream(), StandardCharsets.UTF_8));
      Pattern serving = Pattern.compile("demo: serving the index at (http://\\S+/) ");
      for (String line; url == null && (line = lines.readLine()) != null; ) {
        output.append(line).append('\n');
        Matcher m = serving.matcher(line);
        if (m.find()) {
          url = URI.create(m.group(1));
        }
      }
      assertThat(output.toString(), url != null, is(true));
      ServeFixture.Reply home = ServeFixture.get(url);
      assertThat(home.status(), is(200));
      assertThat(home.body(), containsString("8 groups by PK2"));
      ServeFixture.Reply page = ServeFixture.get(url.resolve("v1/groups/" + hotGroup(output.toString())
          + "/pages/2"));
      assertThat(page.body(), page.status(), is(200));

      demo.destroy(); // SIGTERM, as Ctrl-C or a process manager sends it
      assertThat("the demo exits on SIGTERM", demo.waitFor(60, TimeUnit.SECONDS), is(true));
      boolean refused;
      try {
        ServeFixture.get(url.resolve("healthz"));
        refused = false;
      } catch (java.io.IOException e) {
        refused = true;
      }
      assertThat("the server is stopped", refused, is(true));
    } finally {
      demo.destroyForcibly();
    }
  }

  private static String hotGroup(String output) {
    Matcher m = Pattern.compile("Lookups for (\\S+) ").matcher(output);
    if (!m.find()) {
      throw new AssertionError("the demo printed no lookups:\n" + output);
    }
    return m.group(1);
  }
}
