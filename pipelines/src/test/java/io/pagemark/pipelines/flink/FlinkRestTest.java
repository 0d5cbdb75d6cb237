package io.pagemark.pipelines.flink;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Many long metric names are asked for in several requests, each short enough for Flink's REST server. */
class FlinkRestTest {
  private static List<String> ids(int n) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ids.add("Append_changes_to_the_WAL/Write_segments/ParMultiDo(AppendSegment).pagemark_lagMillis_" + i);
    }
    return ids;
  }

  private static List<String> decoded(List<String> queries) {
    List<String> all = new ArrayList<>();
    for (String q : queries) {
      all.addAll(Arrays.asList(URLDecoder.decode(q, StandardCharsets.UTF_8).split(",")));
    }
    return all;
  }

  @Test
  void manyLongNamesAreSplitIntoRequestsOfBoundedLengthKeepingEveryNameInOrder() {
    List<String> ids = ids(60); // about 7 KB encoded: more than one request line holds
    List<String> queries = FlinkRest.metricQueries(ids, FlinkRest.MAX_QUERY_CHARS);
    assertThat(queries.size() > 1, is(true));
    assertThat(queries.stream().map(String::length).toList(), everyItem(lessThanOrEqualTo(FlinkRest.MAX_QUERY_CHARS)));
    assertThat(decoded(queries), is(ids));
  }

  @Test
  void fewNamesAreOneRequestAndNoneAreNoRequest() {
    assertThat(FlinkRest.metricQueries(ids(3), FlinkRest.MAX_QUERY_CHARS), hasSize(1));
    assertThat(decoded(FlinkRest.metricQueries(ids(3), FlinkRest.MAX_QUERY_CHARS)), is(ids(3)));
    assertThat(FlinkRest.metricQueries(List.of(), FlinkRest.MAX_QUERY_CHARS), empty());
  }

  @Test
  void aNameLongerThanTheBoundIsAskedForAlone() {
    String longName = "x".repeat(50);
    assertThat(FlinkRest.metricQueries(List.of("a", longName, "b"), 20), contains("a", longName, "b"));
  }
}
