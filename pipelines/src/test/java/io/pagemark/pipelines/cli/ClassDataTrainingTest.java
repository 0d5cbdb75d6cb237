package io.pagemark.pipelines.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.emptyArray;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import io.pagemark.dynamo.IndexEntry;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClassDataTrainingTest {
  /** Its entries cover what a build does: several groups, one split into parts, ties in the sort key. */
  @Test
  void theEntriesSplitOneGroupAndTie() {
    Map<String, Integer> perGroup = new TreeMap<>();
    Map<String, Integer> perSortKey = new TreeMap<>();
    for (int i = 0; i < ClassDataTraining.ENTRIES; i++) {
      IndexEntry e = ClassDataTraining.entry(i);
      perGroup.merge(e.group().toString(), 1, Integer::sum);
      perSortKey.merge(e.group() + " " + e.keys().get(0), 1, Integer::sum);
    }
    assertThat(perGroup.size(), is(ClassDataTraining.GROUPS));
    assertThat(perGroup.get("{\"S\":\"g-0\"}"), is(ClassDataTraining.HOT_ENTRIES));
    assertThat(perGroup.get("{\"S\":\"g-0\"}"), greaterThan(ClassDataTraining.MAX_PART_ENTRIES));
    assertThat(perSortKey.values().stream().mapToInt(Integer::intValue).max().orElse(0), greaterThan(1));
  }

  /** The training build runs to the end and leaves nothing behind (here on the DirectRunner, Beam's default). */
  @Test
  void trainingBuildsAndDeletesItsIndex(@TempDir Path parent) throws Exception {
    assertThat(ClassDataTraining.train(new String[] {"--runner=DirectRunner"}, parent), is(0));
    assertThat(parent.toFile().list(), is(emptyArray()));
  }
}
