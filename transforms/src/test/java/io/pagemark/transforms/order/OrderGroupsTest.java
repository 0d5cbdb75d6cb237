package io.pagemark.transforms.order;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.IndexRecord;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.order.TieOrder;
import io.pagemark.transforms.TestEntries;
import io.pagemark.transforms.TestPipelineExtension;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.values.PCollection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link OrderGroups} on the DirectRunner: big groups are cut into parts between runs of equal sort keys, and the
 * parts, read in order, hold every entry of the group in DynamoDB's order (strings by UTF-8 bytes, numbers by value),
 * with each run in the order its {@link TieOrder} gives, exactly as if the group had been ordered in one piece.
 */
@ExtendWith(TestPipelineExtension.class)
class OrderGroupsTest {
  static final KeySchema STRINGS = TestEntries.STRINGS;
  static final KeySchema NUMBERS = TestEntries.NUMBERS;
  static final long MAX_PART = 250;

  /**
   * A stand-in for DynamoDB's order of a run: ascending reads the run by primary key descending, descending reads it
   * rotated by one, so that neither is the fallback order nor the other reversed.
   */
  static TieOrder fakeTies(KeySchema schema) {
    return (group, sortKey, run) -> {
      int n = run.size();
      int[] asc = IntStream.range(0, n).boxed()
          .sorted(Comparator.comparing((Integer i) -> run.get(i).keys().get(1)).reversed())
          .mapToInt(Integer::intValue).toArray();
      int[] desc = new int[n];
      for (int k = 0; k < n; k++) {
        desc[k] = asc[(k + 1) % n];
      }
      return new TieOrder.Resolved(asc, desc);
    };
  }

  @Test
  void bigGroupsAreCutBetweenRunsAndReadInOrderAsIfOrderedWhole(TestPipeline p) {
    PCollection<OrderedPart> parts =
        p.apply(Create.of(TestEntries.of(KeyType.S)).withCoder(IndexEntryCoder.of()))
            .apply(OrderGroups.of(STRINGS).withMaxPartEntries(MAX_PART).withTieOrder(OrderGroupsTest::fakeTies));
    PAssert.that(parts).satisfies(all -> {
      Map<KeyValue, List<IndexRecord>> groups = checkPartsAndJoin(all);
      assertThat(groups.keySet(), equalTo(groupsOf(TestEntries.of(KeyType.S))));
      assertThat("the big group was split", partsOf(all, "big"), greaterThan(1));
      assertThat("about one part per " + MAX_PART + " entries", partsOf(all, "big"), lessThanOrEqualTo(6));
      Map<KeyValue, List<IndexEntry>> input = TestEntries.byGroup(TestEntries.of(KeyType.S));
      for (Map.Entry<KeyValue, List<IndexRecord>> g : groups.entrySet()) {
        List<IndexRecord> records = g.getValue();
        for (int i = 1; i < records.size(); i++) {
          byte[] a = records.get(i - 1).sortKey().text().getBytes(StandardCharsets.UTF_8);
          byte[] b = records.get(i).sortKey().text().getBytes(StandardCharsets.UTF_8);
          assertThat("UTF-8 byte order at rank " + i + " of group " + g.getKey(),
              Arrays.compareUnsigned(a, b), lessThanOrEqualTo(0));
        }
        assertThat("group " + g.getKey(), records,
            equalTo(TestEntries.wholeGroup(input.get(g.getKey()), fakeTies(STRINGS))));
        assertThat(records.stream().filter(r -> r.runLength() > 1).allMatch(IndexRecord::runOrderKnown), is(true));
      }
      return null;
    });
    p.run().waitUntilFinish();
  }

  @Test
  void numbersOrderByValueAndRunsWithoutTieResolutionAreFlaggedUnknown(TestPipeline p) {
    PCollection<OrderedPart> parts =
        p.apply(Create.of(TestEntries.of(KeyType.N)).withCoder(IndexEntryCoder.of()))
            .apply(OrderGroups.of(NUMBERS).withMaxPartEntries(MAX_PART));
    PAssert.that(parts).satisfies(all -> {
      Map<KeyValue, List<IndexRecord>> groups = checkPartsAndJoin(all);
      assertThat(partsOf(all, "big"), greaterThan(1));
      Map<KeyValue, List<IndexEntry>> input = TestEntries.byGroup(TestEntries.of(KeyType.N));
      long runs = 0;
      for (Map.Entry<KeyValue, List<IndexRecord>> g : groups.entrySet()) {
        List<IndexRecord> records = g.getValue();
        for (int i = 1; i < records.size(); i++) {
          BigDecimal a = new BigDecimal(records.get(i - 1).sortKey().text());
          BigDecimal b = new BigDecimal(records.get(i).sortKey().text());
          assertThat("numeric order at rank " + i + " of group " + g.getKey(), a.compareTo(b), lessThanOrEqualTo(0));
        }
        assertThat(records, equalTo(TestEntries.wholeGroup(input.get(g.getKey()), TieOrder.UNKNOWN)));
        for (IndexRecord r : records) {
          if (r.runLength() > 1) {
            runs++;
            assertThat(r.runOrderKnown(), is(false));
          }
        }
      }
      assertThat("the fixture has runs of equal sort keys", runs, greaterThan(100L));
      return null;
    });
    p.run().waitUntilFinish();
  }

  @Test
  void aPartSizeBelowOneIsRefusedNamingTheSetting() {
    assertThat(assertThrows(IllegalArgumentException.class, () -> OrderGroups.of(STRINGS).withMaxPartEntries(0))
        .getMessage(), equalTo("maxPartEntries must be at least 1, not 0"));
  }

  /**
   * Checks that every group's parts are numbered 0..n-1 of n and that no sort key value is in two parts, then joins
   * each group's parts in part order.
   */
  static Map<KeyValue, List<IndexRecord>> checkPartsAndJoin(Iterable<OrderedPart> all) {
    Map<KeyValue, TreeMap<Integer, OrderedPart>> byGroup = new LinkedHashMap<>();
    for (OrderedPart part : all) {
      OrderedPart before = byGroup.computeIfAbsent(part.group(), g -> new TreeMap<>()).put(part.part(), part);
      assertThat("part " + part.part() + " of " + part.group() + " came once", before == null, is(true));
    }
    Map<KeyValue, List<IndexRecord>> joined = new LinkedHashMap<>();
    byGroup.forEach((group, parts) -> {
      int n = parts.firstEntry().getValue().parts();
      assertThat("parts of " + group, new ArrayList<>(parts.keySet()),
          equalTo(IntStream.range(0, n).boxed().toList()));
      Set<KeyValue> earlierParts = new HashSet<>();
      List<IndexRecord> records = new ArrayList<>();
      for (OrderedPart part : parts.values()) {
        assertThat(part.parts(), is(n));
        Set<KeyValue> here = new HashSet<>();
        for (IndexRecord r : part.records()) {
          assertThat("sort key " + r.sortKey() + " of " + group + " is in one part only",
              earlierParts.contains(r.sortKey()), is(false));
          here.add(r.sortKey());
        }
        earlierParts.addAll(here);
        records.addAll(part.records());
      }
      joined.put(group, records);
    });
    return joined;
  }

  static int partsOf(Iterable<OrderedPart> all, String group) {
    for (OrderedPart p : all) {
      if (p.group().equals(KeyValue.ofString(group))) {
        return p.parts();
      }
    }
    throw new AssertionError("no part of group " + group);
  }

  static Set<KeyValue> groupsOf(List<IndexEntry> entries) {
    return TestEntries.byGroup(entries).keySet();
  }
}
