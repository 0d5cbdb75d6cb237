package io.pagemark.pipelines.serve;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import io.pagemark.server.http.PageServer;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.RedisExtension;
import io.pagemark.testing.Schemathesis;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A property-based fuzz of the API from its own OpenAPI description, by schemathesis (from PyPI, installed into a
 * virtualenv under {@code ~/.cache/pagemark} on first use): generated valid and invalid requests to every operation
 * must get no 5xx, only documented statuses and content types, and bodies and headers that match the schema. The run
 * is reproducible (fixed seed, no example database); its report stays in {@code target/schemathesis}.
 */
@ExtendWith({DynamoDbLocalExtension.class, RedisExtension.class})
class ServeFuzzIT {
  static final List<String> CHECKS = List.of("not_a_server_error", "status_code_conformance",
      "content_type_conformance", "response_headers_conformance", "response_schema_conformance",
      "negative_data_rejection");

  @Test
  void theApiMatchesItsOpenApiDescriptionUnderGeneratedRequests() throws Exception {
    Path st = Schemathesis.executable();
    ServeFixture fixture = ServeFixture.get();
    Path report = Path.of("target", "schemathesis").toAbsolutePath();
    Files.createDirectories(report);
    Path log = report.resolve("run.log");
    try (PageServer server = fixture.serve(fixture.index, Duration.ofSeconds(2))) {
      Process p = new ProcessBuilder(st.toString(), "run", server.url().resolve("openapi.json").toString(),
          "--checks", String.join(",", CHECKS), "--max-examples", "60", "--seed", "42",
          "--generation-database", "none", "--workers", "2", "--no-color", "--request-timeout", "30",
          "--report", "junit", "--report-dir", report.toString())
          // in target/: schemathesis keeps a cache (.schemathesis/) in its working directory
          .directory(report.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      if (!p.waitFor(5, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new AssertionError("schemathesis did not finish within 5 minutes; see " + log);
      }
      String out = Files.readString(log, StandardCharsets.UTF_8);
      assertThat(out, p.exitValue(), is(0));
      assertThat(out, containsString("/v1/groups/{group}/pages/{page}"));
      assertThat(out, not(containsString("Server error")));
    }
  }
}
