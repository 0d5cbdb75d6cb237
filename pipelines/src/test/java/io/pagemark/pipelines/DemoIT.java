package io.pagemark.pipelines;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded demo end to end, on a smaller table: it starts and stops its own DynamoDB Local. */
class DemoIT {
  @Test
  void demoBuildsAnIndexAndServesADeepPageInOneQuery(@TempDir Path dir) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Path index = dir.resolve("demo-index");
    int code = Main.run(List.of("demo", "--items=3000", "--products=20", "--page=12", "--pageSize=10",
            "--output=" + index), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    String stdout = out.toString(StandardCharsets.UTF_8);
    String stderr = err.toString(StandardCharsets.UTF_8);
    assertThat(stderr, code, is(0));
    assertThat(stderr, containsString("loading: 3,000 of 3,000 items (100%"));
    assertThat(stdout, containsString("3,000 items scanned -> 3,000 entries in 20 groups"));
    assertThat(stdout, containsString("\"page\":12,\"pageSize\":10,\"order\":\"asc\""));
    assertThat(stdout, containsString("Page 12 of "));
    assertThat(stdout, containsString("through the index: 1 Query request(s)"));
    assertThat(stdout, containsString("The same page by walking LastEvaluatedKey from page 1: 12 Query requests"));
    assertThat(stdout, containsString("items identical"));
    assertThat(stdout, matchesPattern("(?s).*demo: done in [0-9.]+ s; DynamoDB Local stopped.*"));
    assertThat(Files.readString(index.resolve("CURRENT")).trim(), matchesPattern("\\d{8}T\\d{6}Z-[0-9a-f]{4}"));
  }
}
