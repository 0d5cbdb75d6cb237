package io.pagemark.pipelines.flink;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The calls of Flink's REST API that pagemark needs: the cluster overview ({@code GET /overview}: does a JobManager
 * answer, how many TaskManagers and slots it has), the jobs ({@code GET /jobs/overview}: state and tasks finished of
 * each), and a running job's Beam counters (the Flink runner mirrors them as operator metrics). Any failure is an
 * {@link IOException} whose message names the address.
 */
public final class FlinkRest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The cluster as its JobManager sees it. */
  public record Overview(
      int taskManagers,
      int slotsTotal,
      int slotsAvailable,
      int jobsRunning,
      int jobsFinished,
      int jobsFailed,
      int jobsCancelled,
      String flinkVersion) {}

  /** A job and how many of its tasks (parallel instances of its steps) have finished. */
  public record Job(String id, String name, String state, int tasksTotal, int tasksRunning, int tasksFinished) {}

  private final String address;
  private final HttpClient client;

  /** A client of the REST endpoint at {@code host:port} (an {@code http://} prefix is accepted). */
  public FlinkRest(String address) {
    this.address = address.replaceFirst("^https?://", "");
    this.client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  }

  public String address() {
    return address;
  }

  public Overview overview() throws IOException {
    JsonNode n = get("/overview");
    return new Overview(
        n.path("taskmanagers").asInt(), n.path("slots-total").asInt(), n.path("slots-available").asInt(),
        n.path("jobs-running").asInt(), n.path("jobs-finished").asInt(), n.path("jobs-failed").asInt(),
        n.path("jobs-cancelled").asInt(), n.path("flink-version").asText("?"));
  }

  public List<Job> jobs() throws IOException {
    List<Job> jobs = new ArrayList<>();
    for (JsonNode j : get("/jobs/overview").path("jobs")) {
      JsonNode t = j.path("tasks");
      jobs.add(new Job(j.path("jid").asText(), j.path("name").asText(), j.path("state").asText(),
          t.path("total").asInt(), t.path("running").asInt(), t.path("finished").asInt()));
    }
    return jobs;
  }

  /**
   * The Beam counters of namespace {@code namespace} of a job whose names {@code counter} accepts, summed over its
   * operators and subtasks, by name. The Flink runner copies a step's counters to Flink metrics named {@code
   * <namespace>.<name>} of the step's operator when a bundle finishes; the REST API lists them as {@code
   * <operator>.<namespace>_<name>} and serves them as its metric fetcher last saw them ({@code
   * metrics.fetcher.update-interval}, 10 s unless configured). {@code counter} must leave out Beam's distributions
   * and gauges of the namespace: Flink cannot sum them, and logs a warning for each.
   */
  public Map<String, Long> counters(String jobId, String namespace, Predicate<String> counter) throws IOException {
    Map<String, Long> counters = new HashMap<>();
    Pattern metric = Pattern.compile("\\." + Pattern.quote(namespace) + "[._](.+)$");
    for (JsonNode v : get("/jobs/" + jobId).path("vertices")) {
      String metrics = "/jobs/" + jobId + "/vertices/" + v.path("id").asText() + "/subtasks/metrics";
      List<String> ids = new ArrayList<>();
      for (JsonNode m : get(metrics)) {
        String id = m.path("id").asText();
        Matcher name = metric.matcher(id);
        if (name.find() && counter.test(name.group(1))) {
          ids.add(id);
        }
      }
      for (String query : metricQueries(ids, MAX_QUERY_CHARS)) {
        for (JsonNode m : get(metrics + "?agg=sum&get=" + query)) {
          Matcher name = metric.matcher(m.path("id").asText());
          if (name.find()) {
            counters.merge(name.group(1), m.path("sum").asLong(), Long::sum);
          }
        }
      }
    }
    return counters;
  }

  /**
   * The longest {@code get=} value of one metrics request. Flink's REST server does not serve a request line longer
   * than Netty's default of 4,096 bytes (Flink 1.19 answers 404), and a step's metric names are long (its operator's
   * name, up to 80 characters, then the metric's): a stream whose lag spread over many buckets had more counters than
   * one request could name, and its counters stopped moving ({@code FlinkRestIT}).
   */
  static final int MAX_QUERY_CHARS = 3_000;

  /** The comma between metric ids in a {@code get=} value, URL-encoded. */
  private static final String COMMA = "%2C";

  /**
   * {@code ids} as URL-encoded, comma-separated {@code get=} values of at most {@code maxChars} characters each (one
   * longer id alone in its own), in order; none when {@code ids} is empty.
   */
  static List<String> metricQueries(List<String> ids, int maxChars) {
    List<String> queries = new ArrayList<>();
    StringBuilder q = new StringBuilder();
    for (String id : ids) {
      String encoded = URLEncoder.encode(id, StandardCharsets.UTF_8);
      if (q.length() > 0 && q.length() + COMMA.length() + encoded.length() > maxChars) {
        queries.add(q.toString());
        q.setLength(0);
      }
      if (q.length() > 0) {
        q.append(COMMA);
      }
      q.append(encoded);
    }
    if (q.length() > 0) {
      queries.add(q.toString());
    }
    return queries;
  }

  /** The first line of a job's root exception (why it failed), if it has one. */
  public Optional<String> rootException(String jobId) throws IOException {
    String text = get("/jobs/" + jobId + "/exceptions").path("root-exception").asText("");
    return text.isBlank() ? Optional.empty() : Optional.of(text.lines().findFirst().orElse(text).strip());
  }

  private JsonNode get(String path) throws IOException {
    URI uri = URI.create("http://" + address + path);
    HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET().build();
    HttpResponse<String> response;
    try {
      response = client.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while asking Flink at " + address, e);
    } catch (IOException | IllegalArgumentException e) {
      throw new IOException("no Flink REST endpoint answers at " + address + " (" + e + ")", e);
    }
    if (response.statusCode() != 200) {
      throw new IOException("Flink at " + address + " answered " + response.statusCode() + " to GET "
          + (path.length() <= 200 ? path : path.substring(0, 200) + "... (" + path.length() + " characters)"));
    }
    return JSON.readTree(response.body());
  }
}
