package io.pagemark.format.markers;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class MarkerSpecTest {
  @Test
  void parsesTableMarkerIndexAndQuery() {
    MarkerSpec s = MarkerSpec.parse("dynamodb://comments/byProduct-markers?endpoint=http%3A%2F%2F127.0.0.1%3A8000"
        + "&region=eu-west-1&stats=comments.stats");
    assertThat(s.table(), is("comments"));
    assertThat(s.markerIndex(), is("byProduct-markers"));
    assertThat(s.statsTable(), is("comments.stats"));
    assertThat(s.connection().endpoint(), is("http://127.0.0.1:8000"));
    assertThat(s.connection().region(), is("eu-west-1"));
    assertThat(s.toString(), is("dynamodb://comments/byProduct-markers"));
    assertThat(MarkerSpec.parse("dynamodb://comments/idx").statsTable(), is("comments.idx"));
  }

  @Test
  void refusesWhatIsNotAMarkerSpecSayingWhatItExpects() {
    for (String bad : new String[] {"dynamodb://comments", "dynamodb://comments/", "dynamodb://a/b/c",
        "dynamodb://comments/idx?nope=1", "redis://x"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MarkerSpec.parse(bad), bad);
      assertThat(bad, e.getMessage(), containsString("dynamodb://TABLE/MARKER_INDEX"));
    }
    assertThat(assertThrows(IllegalArgumentException.class, () -> MarkerSpec.parse("dynamodb://../x")).getMessage(),
        containsString("\"..\" is not a DynamoDB table name"));
  }
}
