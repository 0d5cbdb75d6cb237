package io.pagemark.format;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * What is learned from the values of parts one after another ({@link ColumnStats#then}) chooses the codec that one
 * pass over all of them chooses, for every family of values a codec depends on, cut anywhere (empty parts too).
 */
class ColumnStatsTest {
  private static final Random R = new Random(23);

  /** Families of values, each making one codec the narrowest, plus a few that break it in one value. */
  private static List<Function<Random, List<String>>> families() {
    List<Function<Random, List<String>>> f = new ArrayList<>();
    f.add(r -> values(r, 40, () -> String.format("item-%06d", r.nextInt(100_000)))); // digits, shared prefix
    f.add(r -> values(r, 40, () -> String.format("item-%06d", 90_000 + r.nextInt(10_000))));
    f.add(r -> values(r, 40, () -> GroupFileV2Test.datetime(r))); // seconds
    f.add(r -> values(r, 40, () -> GroupFileV2Test.datetime(r).replace("Z", "." + (100 + r.nextInt(900)) + "Z")));
    f.add(r -> values(r, 40, () -> "ab" + alpha(r, 10))); // alphabet of 64, fixed length
    f.add(r -> values(r, 40, () -> "user/" + alpha(r, 1 + r.nextInt(12)) + (r.nextBoolean() ? "" : "-x"))); // var
    f.add(r -> values(r, 40, () -> "same")); // one value
    f.add(r -> withOdd(r, values(r, 40, () -> String.format("n%05d", r.nextInt(1000))), "n0000x"));
    f.add(r -> withOdd(r, values(r, 40, () -> GroupFileV2Test.datetime(r)), "2024-02-30T00:00:00Z"));
    f.add(r -> withOdd(r, values(r, 40, () -> "ab" + alpha(r, 10)), "ab" + alpha(r, 9)));
    f.add(r -> withOdd(r, values(r, 40, () -> "ab" + alpha(r, 10)), "ab" + alpha(r, 5) + "." + alpha(r, 4)));
    f.add(r -> withOdd(r, values(r, 40, () -> "pre" + alpha(r, 6)), "other"));
    f.add(r -> values(r, 1, () -> "x"));
    return f;
  }

  @Test
  void partsLearnedOneAfterAnotherChooseWhatOnePassChooses() {
    for (Function<Random, List<String>> family : families()) {
      for (int trial = 0; trial < 60; trial++) {
        List<String> values = family.apply(R);
        ColumnStats whole = new ColumnStats();
        values.forEach(v -> whole.add(v.getBytes(StandardCharsets.UTF_8)));
        List<Integer> cuts = new ArrayList<>(List.of(0, values.size()));
        for (int i = R.nextInt(4); i > 0; i--) {
          cuts.add(R.nextInt(values.size() + 1));
        }
        cuts.sort(null);
        ColumnStats joined = null;
        for (int i = 0; i + 1 < cuts.size(); i++) {
          ColumnStats part = new ColumnStats();
          values.subList(cuts.get(i), cuts.get(i + 1)).forEach(v -> part.add(v.getBytes(StandardCharsets.UTF_8)));
          joined = joined == null ? part : joined.then(part);
        }
        assertThat(values + " cut at " + cuts, describe(joined.choose()), equalTo(describe(whole.choose())));
      }
    }
  }

  /**
   * A maximum or minimum is written over in place as values come (sorted values raise the maximum at every one), so
   * what was joined from parts must not share them: learning more in a part changes nothing already joined.
   */
  @Test
  void whatWasJoinedStaysWhenItsPartsLearnMore() {
    for (Function<Random, List<String>> family : families()) {
      for (int trial = 0; trial < 20; trial++) {
        List<String> values = family.apply(R);
        if (trial % 2 == 0) {
          values.sort(null); // ascending: the maximum moves at every value
        }
        ColumnStats first = new ColumnStats();
        ColumnStats second = new ColumnStats();
        int cut = R.nextInt(values.size() + 1);
        values.subList(0, cut).forEach(v -> first.add(v.getBytes(StandardCharsets.UTF_8)));
        values.subList(cut, values.size()).forEach(v -> second.add(v.getBytes(StandardCharsets.UTF_8)));
        ColumnStats joined = first.then(second);
        ColumnStats alone = first.then(new ColumnStats()); // a copy of the first
        String joinedBefore = describe(joined.choose());
        String aloneBefore = describe(alone.choose());
        for (List<String> more : family.apply(R).stream().map(List::of).toList()) {
          first.add(more.get(0).getBytes(StandardCharsets.UTF_8));
          second.add(more.get(0).getBytes(StandardCharsets.UTF_8));
        }
        for (String edge : List.of("", "~~~~~~~~~~~~~~~~~~~~~~~~", "item-000000", "item-999999")) {
          first.add(edge.getBytes(StandardCharsets.UTF_8));
          second.add(edge.getBytes(StandardCharsets.UTF_8));
        }
        assertThat(values + " cut at " + cut, describe(joined.choose()), equalTo(joinedBefore));
        assertThat(values + " cut at " + cut, describe(alone.choose()), equalTo(aloneBefore));
      }
    }
  }

  /**
   * The times kept for the writer are each value's, in order, in the unit of the codec chosen, and only when every
   * value is a datetime and as many were announced as added: else the writer parses the values itself.
   */
  @Test
  void timesAreKeptOnlyForAColumnOfDatetimes() {
    for (Function<Random, List<String>> family : families()) {
      for (int trial = 0; trial < 20; trial++) {
        List<String> values = family.apply(R);
        ColumnStats stats = new ColumnStats();
        stats.rememberTimes(values.size());
        values.forEach(v -> stats.add(v.getBytes(StandardCharsets.UTF_8)));
        ColumnCodec codec = stats.choose();
        long[] times = stats.times();
        if (!codec.isDatetime()) {
          assertThat(values + " is no column of datetimes", times == null, equalTo(true));
          continue;
        }
        long[] expected = new long[values.size()];
        for (int i = 0; i < expected.length; i++) {
          byte[] v = values.get(i).getBytes(StandardCharsets.UTF_8);
          expected[i] = Datetimes.parse(v, 0, v.length, codec.code() == ColumnCodec.DATETIME_MS);
        }
        assertThat(values.toString(), times, equalTo(expected));
        ColumnStats more = new ColumnStats();
        more.rememberTimes(values.size() - 1);
        values.forEach(v -> more.add(v.getBytes(StandardCharsets.UTF_8)));
        assertThat("more values than announced", more.times() == null, equalTo(true));
      }
    }
    ColumnStats unasked = new ColumnStats();
    unasked.add("2024-01-01T00:00:00Z".getBytes(StandardCharsets.US_ASCII));
    assertThat("not asked for", unasked.times() == null, equalTo(true));
  }

  private static String describe(ColumnCodec c) {
    return c.code() + " " + Arrays.toString(c.prefix()) + " p=" + c.p() + " k=" + c.k() + " base=" + c.base();
  }

  private static List<String> values(Random r, int n, java.util.function.Supplier<String> value) {
    List<String> v = new ArrayList<>();
    for (int i = 1 + r.nextInt(n); i > 0; i--) {
      v.add(value.get());
    }
    return v;
  }

  private static List<String> withOdd(Random r, List<String> values, String odd) {
    values.add(r.nextInt(values.size() + 1), odd);
    return values;
  }

  private static String alpha(Random r, int n) {
    String symbols = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) {
      b.append(symbols.charAt(r.nextInt(symbols.length())));
    }
    return b.toString();
  }
}
