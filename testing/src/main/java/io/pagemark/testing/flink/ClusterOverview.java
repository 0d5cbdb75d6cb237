package io.pagemark.testing.flink;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A local cluster as its JobManager's REST endpoint sees it ({@code GET /overview}), for startup and status checks.
 * The launcher keeps this one call of its own: the CLI's Flink REST client lives with the pipelines and ships in the
 * job jar, which this module never joins.
 */
public record ClusterOverview(
    int taskManagers,
    int slotsTotal,
    int slotsAvailable,
    int jobsRunning,
    int jobsFinished,
    int jobsFailed,
    int jobsCancelled,
    String flinkVersion) {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /**
   * Asks the REST endpoint at {@code host:port}.
   *
   * @throws IOException naming the address when nothing answers there, or it answers with an error
   */
  public static ClusterOverview of(String restAddress) throws IOException {
    URI uri = URI.create("http://" + restAddress + "/overview");
    HttpResponse<String> response;
    try {
      response = CLIENT.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET().build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while asking Flink at " + restAddress, e);
    } catch (IOException | IllegalArgumentException e) {
      throw new IOException("no Flink REST endpoint answers at " + restAddress + " (" + e + ")", e);
    }
    if (response.statusCode() != 200) {
      throw new IOException("Flink at " + restAddress + " answered " + response.statusCode() + " to GET /overview");
    }
    JsonNode n = JSON.readTree(response.body());
    return new ClusterOverview(
        n.path("taskmanagers").asInt(), n.path("slots-total").asInt(), n.path("slots-available").asInt(),
        n.path("jobs-running").asInt(), n.path("jobs-finished").asInt(), n.path("jobs-failed").asInt(),
        n.path("jobs-cancelled").asInt(), n.path("flink-version").asText("?"));
  }
}
