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
import io.pagemark.format.KeyAttribute;
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
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.runners.TransformHierarchy;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PValue;
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
    bigGroups(p, OrderGroups.of(STRINGS));
  }

  /**
   * As runners that shuffle plan them (on the DirectRunner every group's samples go under one key, and the blocks wait
   * for the plans).
   */
  @Test
  void bigGroupsAreCutTheSameInTheStepsOfRunnersThatShuffle(TestPipeline p) {
    OrderGroups shuffled = OrderGroups.of(STRINGS).withDirectRunnerShape(false);
    assertThat(shuffled.shapedForDirectRunner(p.getOptions()), is(false));
    assertThat(OrderGroups.of(STRINGS).shapedForDirectRunner(p.getOptions()), is(true));
    bigGroups(p, shuffled);
  }

  /**
   * On the DirectRunner the blocks reach {@code Assign parts} only through {@link HoldBlocks}, which waits for the
   * plans' input; on runners that shuffle they go straight there.
   */
  @Test
  void onTheDirectRunnerTheBlocksWaitForThePlans() {
    assertThat(assignPartsInput(OrderGroups.of(STRINGS)), is("Order groups/Hold blocks until the plans are made"));
    assertThat(assignPartsInput(OrderGroups.of(STRINGS).withDirectRunnerShape(false)),
        is("Order groups/Block and sample groups"));
  }

  /**
   * On runners that shuffle the blocking step has one output, the blocks with the samples among them
   * ({@link SampleBlocks}): on Flink's batch runner a step with two outputs makes a step per output that reads both
   * whole. On the DirectRunner the samples have an output of their own.
   */
  @Test
  void onRunnersThatShuffleTheBlockingStepHasOneOutput() {
    assertThat(outputsOf(OrderGroups.of(STRINGS).withDirectRunnerShape(false), "Order groups/Block and sample groups"),
        is(1));
    assertThat(outputsOf(OrderGroups.of(STRINGS), "Order groups/Block and sample groups"), is(2));
  }

  /** How many outputs the step of this name has, in a pipeline on the DirectRunner. */
  private static int outputsOf(OrderGroups order, String step) {
    int[] outputs = {-1};
    eachStep(order, node -> {
      if (node.getFullName().equals(step)) {
        outputs[0] = node.getOutputs().size();
      }
    });
    return outputs[0];
  }

  /** The step that makes the main input of {@code Assign parts}, in a pipeline on the DirectRunner. */
  private static String assignPartsInput(OrderGroups order) {
    String[] producer = {null};
    Map<PValue, String> madeBy = new HashMap<>();
    eachStep(order, node -> {
      if (node.getFullName().equals("Order groups/Assign parts")) {
        producer[0] = madeBy.get(node.getInputs().values().iterator().next());
      }
      for (PValue out : node.getOutputs().values()) {
        madeBy.putIfAbsent(out, node.getFullName());
      }
    });
    return producer[0];
  }

  /** Visits every step, composite or not, of a pipeline on the DirectRunner that orders the test entries so. */
  private static void eachStep(OrderGroups order, Consumer<TransformHierarchy.Node> visit) {
    Pipeline p = Pipeline.create();
    p.apply(Create.of(TestEntries.of(KeyType.S)).withCoder(IndexEntryCoder.of()))
        .apply("Order groups", order.withMaxPartEntries(MAX_PART));
    p.traverseTopologically(new Pipeline.PipelineVisitor.Defaults() {
      @Override
      public CompositeBehavior enterCompositeTransform(TransformHierarchy.Node node) {
        visit.accept(node);
        return CompositeBehavior.ENTER_TRANSFORM;
      }

      @Override
      public void visitPrimitiveTransform(TransformHierarchy.Node node) {
        visit.accept(node);
      }
    });
  }

  private void bigGroups(TestPipeline p, OrderGroups order) {
    PCollection<OrderedPart> parts =
        p.apply(Create.of(TestEntries.of(KeyType.S)).withCoder(IndexEntryCoder.of()))
            .apply(order.withMaxPartEntries(MAX_PART).withTieOrder(OrderGroupsTest::fakeTies));
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

  /**
   * Groups of at most a quarter of a part share parts: each still comes out once, in one part, ordered as if alone,
   * and a number group key written two ways ({@code 7} and {@code 7.0}) is one group.
   */
  @Test
  void smallGroupsSharePartsAndEachComesOutWholeOnce(TestPipeline p) {
    PCollection<OrderedPart> parts = p.apply(Create.of(smallGroups()).withCoder(IndexEntryCoder.of()))
        .apply(OrderGroups.of(NUMBER_GROUPS).withMaxPartEntries(40).withTieOrder(OrderGroupsTest::fakeTies));
    PAssert.that(parts).satisfies(all -> {
      Map<KeyValue, List<IndexRecord>> groups = checkPartsAndJoin(all);
      Map<KeyValue, List<IndexEntry>> input = TestEntries.byGroup(smallGroups());
      assertThat(groups.keySet(), equalTo(input.keySet()));
      assertThat(groups.size(), is(300));
      for (OrderedPart part : all) {
        assertThat("group " + part.group() + " is in one part", part.parts(), is(1));
      }
      for (Map.Entry<KeyValue, List<IndexRecord>> g : groups.entrySet()) {
        assertThat("group " + g.getKey(), g.getValue(),
            equalTo(TestEntries.wholeGroup(input.get(g.getKey()), fakeTies(NUMBER_GROUPS))));
      }
      return null;
    });
    p.run().waitUntilFinish();
  }

  static final KeySchema NUMBER_GROUPS = new KeySchema("t", "byG", "G", KeyType.N,
      List.of(new KeyAttribute("SK", KeyType.S, KeyAttribute.INDEX_SORT_KEY),
          new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY)),
      "PK", null);

  /** 300 groups of 1 to 10 entries (every tenth up to 40), number group keys written two ways, shuffled. */
  static List<IndexEntry> smallGroups() {
    java.util.Random rnd = new java.util.Random(21);
    List<IndexEntry> entries = new ArrayList<>();
    for (int g = 0; g < 300; g++) {
      int size = 1 + rnd.nextInt(g % 10 == 0 ? 40 : 10); // parts of 40: groups of up to 10 share
      for (int i = 0; i < size; i++) {
        String group = i % 2 == 0 ? Integer.toString(g) : g + ".0";
        entries.add(new IndexEntry(KeyValue.parse(KeyType.N, group),
            List.of(KeyValue.ofString("k" + rnd.nextInt(6)), KeyValue.ofString("pk" + g + "#" + i))));
      }
    }
    java.util.Collections.shuffle(entries, rnd);
    return entries;
  }

  /** A part's key carries its part number and its group's number of parts: ordering a part reads no plans. */
  @Test
  void partKeysCarryTheirPlan() {
    byte[] prefix = AssignPartFn.prefix(KeyValue.ofString("SKU-1"));
    byte[] key = AssignPartFn.partKey(prefix, 7, 12);
    assertThat(AssignPartFn.partOf(key), is(7));
    assertThat(AssignPartFn.partsOf(key), is(12));
    assertThat(AssignPartFn.isShared(key), is(false));
    assertThat(java.util.Arrays.copyOf(key, prefix.length), equalTo(prefix));
  }

  /** Small groups spread evenly over the shared parts, whatever their keys look like. */
  @Test
  void sharedPartsAreChosenEvenly() {
    int parts = 100;
    int[] load = new int[parts];
    for (int g = 0; g < 20_000; g++) {
      byte[] prefix = AssignPartFn.prefix(KeyValue.ofString("SKU-" + String.format("%05d", g)));
      byte[] key = AssignPartFn.sharedKey(prefix, parts);
      assertThat(AssignPartFn.isShared(key), is(true));
      assertThat(AssignPartFn.isShared(AssignPartFn.partKey(prefix, 0, 1)), is(false));
      assertThat("the same part on every call", key, equalTo(AssignPartFn.sharedKey(prefix.clone(), parts)));
      load[java.nio.ByteBuffer.wrap(key, 1, 4).getInt()]++;
    }
    for (int n : load) {
      assertThat("about 200 groups in each part", n, is(org.hamcrest.Matchers.both(greaterThan(140))
          .and(lessThanOrEqualTo(260))));
    }
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
