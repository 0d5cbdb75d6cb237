package io.pagemark.format;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.matchesPattern;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BuildIdsTest {
  private static final long SECOND = 1_764_374_400_000L; // 2025-11-29T00:00:00Z

  /** Builds made one after another within a second, or across seconds, sort in the order they were made. */
  @Test
  void idsSortByTimeWithinASecond() {
    for (int round = 0; round < 200; round++) {
      List<String> made = new ArrayList<>();
      for (long ms = 0; ms < 2_000; ms += 1 + round % 7) {
        made.add(BuildIds.newId(SECOND + ms));
      }
      List<String> sorted = new ArrayList<>(made);
      sorted.sort(null);
      assertThat(sorted, equalTo(made));
    }
  }

  /** The last millisecond of a second with the largest random part still fits the 4 hex digits, as ids always had. */
  @Test
  void idsKeepTheirShape() {
    for (int i = 0; i < 2_000; i++) {
      String id = BuildIds.newId(SECOND + 999);
      assertThat(id, matchesPattern("20251129T000000Z-[0-9a-f]{4}"));
      assertThat(Integer.parseInt(id.substring(id.length() - 4), 16), lessThan(1000 * BuildIds.PER_MILLI));
      assertThat(IndexLayout.checkBuildId(id), equalTo(id));
    }
    for (int i = 0; i < 2_000; i++) { // the first millisecond of a second: the random part alone, below 65
      String id = BuildIds.newId(SECOND);
      assertThat(id, matchesPattern("20251129T000000Z-00[0-9a-f]{2}"));
      assertThat(Integer.parseInt(id.substring(id.length() - 4), 16), lessThan(BuildIds.PER_MILLI));
    }
  }
}
