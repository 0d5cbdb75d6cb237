package io.pagemark.transforms.order;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.lessThan;

import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.time.Instant;
import java.util.List;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * A group's sample keeps about one entry in {@code every}, spread evenly over the group's keys, for keys with the
 * structure tables have (counters, timestamps, numbers, long shared prefixes): a biased sample would cut a big group
 * into parts of very different sizes.
 */
class SampleSpreadTest {
  private static final int N = 200_000;
  private static final long EVERY = 200;

  @Test
  void samplesAboutOneInEveryEvenlyOverStructuredKeys() {
    check("counters", i -> List.of(KeyValue.ofString(String.format("item-%08d", i)), KeyValue.ofString("p")));
    check("timestamps", i -> List.of(KeyValue.ofString(Instant.ofEpochSecond(1_700_000_000L + i).toString()),
        KeyValue.ofString("order#" + i)));
    check("numbers", i -> List.of(KeyValue.parse(KeyType.N, Integer.toString(i)), KeyValue.ofString("x")));
    check("one sort key, table keys counting", i -> List.of(KeyValue.ofString("same"),
        KeyValue.ofString("user/0000000000000000/" + i)));
    check("long shared prefix", i -> List.of(KeyValue.ofString("tenant-0042/region-eu-west-1/2024/" + i),
        KeyValue.ofString("p")));
  }

  private static void check(String what, IntFunction<List<KeyValue>> keysOf) {
    PlanGroupFn.Sample sample = new PlanGroupFn.Sample();
    int[] perTenth = new int[10];
    for (int i = 0; i < N; i++) {
      List<KeyValue> keys = keysOf.apply(i);
      int before = sample.sortKeys.size();
      sample.add(keys, EntryBlock.Writer.numbersSortable(keys), EVERY);
      perTenth[i / (N / 10)] += sample.sortKeys.size() - before;
    }
    long expected = N / EVERY;
    assertThat(what + ": sampled", (long) sample.sortKeys.size(),
        allOf(greaterThan(expected * 85 / 100), lessThan(expected * 115 / 100)));
    for (int t = 0; t < 10; t++) {
      assertThat(what + ": sampled in tenth " + t, (long) perTenth[t],
          allOf(greaterThan(expected / 10 * 70 / 100), lessThan(expected / 10 * 130 / 100)));
    }
  }
}
