package io.pagemark.format;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The query part of an index spec ({@code s3://BUCKET/PREFIX?endpoint=URL&region=R}, {@code dynamodb://T/I?...}):
 * its parameters in the order given, values percent-decoded. Which names a store takes is the store's to check.
 */
public final class SpecParameters {
  private SpecParameters() {}

  /** The parameters after {@code spec}'s first '?' (none without one); a name without '=' has the value "". */
  public static Map<String, String> of(String spec) {
    Map<String, String> parameters = new LinkedHashMap<>();
    int q = spec.indexOf('?');
    if (q >= 0) {
      for (String pair : spec.substring(q + 1).split("&")) {
        int eq = pair.indexOf('=');
        parameters.put(eq < 0 ? pair : pair.substring(0, eq),
            eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return parameters;
  }
}
