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
  void aStatsKeyPutsTheStatsItemsInTheTableAndExcludesAStatsTable() {
    MarkerSpec s = MarkerSpec.parse("dynamodb://comments/idx?statsKey=_pm%23stats");
    assertThat(s.statsKey(), is("_pm#stats"));
    assertThat(s.statsTable(), is("comments"));
    assertThat(s.withStatsKey(), is("dynamodb://comments/idx?statsKey=_pm%23stats"));
    assertThat(MarkerSpec.parse("dynamodb://comments/idx").withStatsKey(), is("dynamodb://comments/idx"));
    assertThat(assertThrows(IllegalArgumentException.class,
        () -> MarkerSpec.parse("dynamodb://comments/idx?stats=t.s&statsKey=p")).getMessage(),
        containsString("names both stats= and statsKey="));
    assertThat(assertThrows(IllegalArgumentException.class,
        () -> MarkerSpec.parse("dynamodb://comments/idx?statsKey=")).getMessage(),
        containsString("must be 1 to 200 bytes"));
  }

  @Test
  void theCliConnectionGoesIntoASpecThatNamesNoneOfItsOwn() {
    assertThat(MarkerSpec.withConnection("dynamodb://t1/i1", "http://127.0.0.1:8000", null),
        is("dynamodb://t1/i1?endpoint=http%3A%2F%2F127.0.0.1%3A8000"));
    assertThat(MarkerSpec.withConnection("dynamodb://t1/i1?endpoint=http://x", "http://y", "eu-west-1"),
        is("dynamodb://t1/i1?endpoint=http://x&region=eu-west-1"));
    assertThat(MarkerSpec.withConnection("/data/index", "http://y", "eu-west-1"), is("/data/index"));
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
