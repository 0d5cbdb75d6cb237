package io.pagemark.bench;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.dynamo.IndexEntry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SyntheticEntriesTest {
  private final SyntheticEntries spec = new SyntheticEntries(20_000, 100, 4_000);

  @Test
  void theHotGroupAndTheOthersHaveTheirSizes() {
    Map<Integer, Integer> counts = new HashMap<>();
    for (long i = 0; i < spec.entries(); i++) {
      counts.merge(spec.groupOf(i), 1, Integer::sum);
    }
    assertThat(counts.size(), is(100));
    assertThat(counts.get(0), is(4_000));
    for (int g = 1; g < 100; g++) {
      assertThat(counts.get(g), is(greaterThan(150)));
    }
  }

  @Test
  void theTextLineHoldsTheEntrysKeys() {
    for (long i = 0; i < 20_000; i++) { // the hot group, the others, and sort keys over the whole span
      IndexEntry e = spec.entry(i);
      assertThat(spec.line(i),
          is(e.group().text() + "\t" + e.keys().get(0).text() + "\t" + e.keys().get(1).text()));
      assertThat(SyntheticEntries.keyBytes(i), is(e.keys().get(0).length() + e.keys().get(1).length()));
    }
  }

  @Test
  void tableKeysAreUniqueAndSomeSortKeysRepeat() {
    SyntheticEntries big = new SyntheticEntries(200_000, 1, 200_000);
    Set<String> sortKeys = new HashSet<>();
    int repeats = 0;
    for (long i = 0; i < big.entries(); i++) {
      repeats += sortKeys.add(SyntheticEntries.sortKey(i)) ? 0 : 1;
    }
    assertThat(repeats, is(greaterThan(0)));
    assertThat(SyntheticEntries.tableKey(7), is("comment-0000000007"));
  }

  /** The baseline sorts text by bytes: that must be the order the index gives the same entries. */
  @Test
  void byteOrderOfTheLinesIsTheIndexOrder() {
    List<Long> byLine = new ArrayList<>();
    List<Long> byIndex = new ArrayList<>();
    for (long i = 0; i < spec.entries(); i++) {
      byLine.add(i);
      byIndex.add(i);
    }
    byLine.sort((a, b) -> Arrays.compareUnsigned(spec.line(a).getBytes(StandardCharsets.UTF_8),
        spec.line(b).getBytes(StandardCharsets.UTF_8)));
    Comparator<Long> index = Comparator.<Long, byte[]>comparing(i -> spec.entry(i).group().sortableBytes(),
        Arrays::compareUnsigned).thenComparing(i -> spec.entry(i), IndexEntry.ORDER);
    byIndex.sort(index);
    assertThat(byLine, is(byIndex));
  }

  /** The keys are formatted by hand for speed: they must be what the JDK writes. */
  @Test
  void keysAreWhatTheJdkWrites() {
    java.util.Random random = new java.util.Random(17);
    // centuries that are not leap years (1700, 1800, 1900, 2100), 2000 that is, and days before 1970
    long from = java.time.Instant.parse("1600-01-01T00:00:00Z").getEpochSecond();
    long to = java.time.Instant.parse("2500-01-01T00:00:00Z").getEpochSecond();
    for (int n = 0; n < 200_000; n++) {
      long seconds = n < 100_000 ? from + n * 283_999L : from + Math.floorMod(random.nextLong(), to - from);
      assertThat(SyntheticEntries.isoSeconds(seconds), is(java.time.Instant.ofEpochSecond(seconds).toString()));
      long i = n < 100_000 ? n : random.nextLong() & Long.MAX_VALUE;
      assertThat(SyntheticEntries.tableKey(i), is(String.format("comment-%010d", i)));
    }
    assertThat(SyntheticEntries.isoSeconds(0), is("1970-01-01T00:00:00Z"));
    assertThat(SyntheticEntries.sortKey(0).length(), is(20));
    assertThat(SyntheticEntries.groupKey(0), is("SKU-00000"));
    assertThat(SyntheticEntries.groupKey(123_456), is("SKU-123456"));
    assertThat(SyntheticEntries.tableKey(0), is("comment-0000000000"));
  }

  /** Sort keys come from a table of the span's days: every day of it must be what the general formatter writes. */
  @Test
  void everyDayOfTheSpanIsWhatTheFormatterWrites() {
    byte[] b = new byte[SyntheticEntries.ENTRY_SCRATCH];
    long days = SyntheticEntries.SPAN_SECONDS / 86_400;
    for (long day = 0; day < days; day++) {
      for (long offset : new long[] {day * 86_400, day * 86_400 + Math.floorMod(day * 7_919, 86_400),
          day * 86_400 + 86_399}) {
        int end = SyntheticEntries.putSpanSeconds(b, 3, offset);
        assertThat(new String(b, 3, end - 3, StandardCharsets.US_ASCII),
            is(SyntheticEntries.isoSeconds(SyntheticEntries.BASE_SECONDS + offset)));
      }
    }
    for (long i = 0; i < 100_000; i++) {
      assertThat(SyntheticEntries.sortKey(i), is(SyntheticEntries.isoSeconds(SyntheticEntries.sortKeySeconds(i))));
    }
  }

  /** The source reuses one scratch buffer for a segment's entries: nothing of one entry may show in the next. */
  @Test
  void aReusedScratchBufferGivesTheSameEntries() {
    SyntheticEntries wide = new SyntheticEntries(Long.MAX_VALUE, Integer.MAX_VALUE, 0);
    byte[] scratch = new byte[SyntheticEntries.ENTRY_SCRATCH];
    // keys of every width: table keys of 10 to 19 digits, group keys of 5 to 10, then narrow ones again
    long[] numbers = {0, 9_999_999_999L, 10_000_000_000L, 7, Long.MAX_VALUE, 12_345, 99_999_999_999_999L, 3};
    for (long i : numbers) {
      IndexEntry reused = wide.entry(i, scratch);
      assertThat(reused, is(wide.entry(i)));
      assertThat(reused.group().text(), is(SyntheticEntries.groupKey(wide.groupOf(i))));
      assertThat(reused.keys().get(1).text(), is(String.format("comment-%010d", i)));
    }
    long last = Long.MAX_VALUE - 1;
    assertThat(wide.entry(last).group().text(), is(String.format("SKU-%05d", 1 + last % (Integer.MAX_VALUE - 1))));
  }

  @Test
  void rejectsImpossibleSpecs() {
    assertThrows(IllegalArgumentException.class, () -> new SyntheticEntries(10, 1, 5));
    assertThrows(IllegalArgumentException.class, () -> new SyntheticEntries(10, 2, 11));
    assertThrows(IllegalArgumentException.class, () -> new SyntheticEntries(0, 1, 0));
  }
}
