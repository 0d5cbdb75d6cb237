package io.pagemark.bench;

import io.pagemark.testing.DebianPackages;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The HTTP load generator {@code wrk} (Debian's package, installed with apt-get when missing): runs it against one
 * URL for a fixed time and reads its summary, so that every HTTP figure of the suite is measured the same way.
 */
final class Wrk {
  /** What one run measured: completed requests per second, latency percentiles in microseconds, non-2xx answers. */
  record Result(double requestsPerSecond, double p50Micros, double p99Micros, long requests, long errors,
      String output) {}

  private static final Pattern RPS = Pattern.compile("Requests/sec:\\s+([0-9.]+)");
  private static final Pattern REQUESTS = Pattern.compile("(\\d+) requests in");
  private static final Pattern NON_2XX = Pattern.compile("Non-2xx or 3xx responses:\\s+(\\d+)");
  private static final Pattern SOCKET_ERRORS =
      Pattern.compile("Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)");

  private Wrk() {}

  static Path executable() throws IOException {
    return DebianPackages.ensure("wrk", "wrk");
  }

  /** {@code wrk -t threads -c connections -d seconds --timeout timeoutSeconds --latency url}. */
  static Result run(URI url, int threads, int connections, int seconds, int timeoutSeconds)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(executable().toString(), "-t" + threads, "-c" + connections,
        "-d" + seconds + "s", "--timeout", timeoutSeconds + "s", "--latency", url.toString()));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(seconds + timeoutSeconds + 60L, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("wrk did not finish");
    }
    String text = new String(out, StandardCharsets.UTF_8);
    if (p.exitValue() != 0) {
      throw new IOException("wrk failed (exit code " + p.exitValue() + "): " + text);
    }
    return parse(text);
  }

  static Result parse(String text) {
    Matcher rps = RPS.matcher(text);
    Matcher requests = REQUESTS.matcher(text);
    if (!rps.find() || !requests.find()) {
      throw new IllegalStateException("wrk printed no summary:\n" + text);
    }
    long errors = 0;
    Matcher non2xx = NON_2XX.matcher(text);
    if (non2xx.find()) {
      errors += Long.parseLong(non2xx.group(1));
    }
    Matcher socket = SOCKET_ERRORS.matcher(text);
    if (socket.find()) {
      for (int i = 1; i <= 4; i++) {
        errors += Long.parseLong(socket.group(i));
      }
    }
    return new Result(Double.parseDouble(rps.group(1)), percentile(text, "50%"), percentile(text, "99%"),
        Long.parseLong(requests.group(1)), errors, text);
  }

  /** A line of wrk's latency distribution, such as {@code 99%   12.34ms}, in microseconds. */
  static double percentile(String text, String label) {
    Matcher m = Pattern.compile("^\\s*" + Pattern.quote(label) + "\\s+([0-9.]+)(us|ms|s|m)\\s*$", Pattern.MULTILINE)
        .matcher(text);
    if (!m.find()) {
      throw new IllegalStateException("wrk printed no " + label + " latency:\n" + text);
    }
    double v = Double.parseDouble(m.group(1));
    switch (m.group(2).toLowerCase(Locale.ROOT)) {
      case "us":
        return v;
      case "ms":
        return v * 1e3;
      case "s":
        return v * 1e6;
      default:
        return v * 60e6;
    }
  }
}
