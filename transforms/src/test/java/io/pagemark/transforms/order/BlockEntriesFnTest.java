package io.pagemark.transforms.order;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.transforms.TestPipelineExtension;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTagList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Blocking keeps every entry, once, in a block of its own group, and counts every group, whatever the memory budget
 * makes it do: a budget of a few kilobytes emits blocks early and forgets groups (emitting their samples) many times.
 */
@ExtendWith(TestPipelineExtension.class)
class BlockEntriesFnTest {
  @Test
  void aSmallBudgetLosesNothingAndMixesNoGroups(TestPipeline p) {
    smallBudget(p, false);
  }

  @Test
  void aSmallBudgetLosesNothingWithEveryGroupsSamplesUnderOneKey(TestPipeline p) {
    smallBudget(p, true);
  }

  /**
   * A table of many small groups hands the planning steps an element per bucket of groups, not one per group: 20,000
   * groups of one entry each come out in at most {@value BlockEntriesFn#SAMPLE_BUCKETS} elements a bundle, each keyed
   * by the bucket of every group it holds, and every group counted once.
   */
  @Test
  void manySmallGroupsShareTheirBucketsElements(TestPipeline p) {
    List<IndexEntry> all = new ArrayList<>();
    for (int g = 0; g < 20_000; g++) {
      all.add(new IndexEntry(KeyValue.ofString("g" + g),
          List.of(KeyValue.ofString("k"), KeyValue.ofString("pk" + g))));
    }
    PCollectionTuple out = block(p.apply(Create.of(all).withCoder(IndexEntryCoder.of())), new BlockEntriesFn(7, false),
        false);
    Map<String, Long> expected = groupsOf(all);
    PAssert.that(out.get(BlockEntriesFn.SAMPLES)).satisfies(samples -> {
          assertThat(countedUnderTheirKeys(samples, false), equalTo(expected));
          int elements = 0;
          for (var kv : samples) {
            elements++;
          }
          assertThat("elements of samples for 20,000 groups", elements, lessThan(expected.size() / 4));
          return null;
        });
    p.run().waitUntilFinish();
  }

  /**
   * Blocks {@code input} as {@link OrderGroups} does: with {@code oneKey} the samples on an output of their own, else
   * among the blocks ({@link SampleBlocks}), picked out for the planning steps. Returns the blocks' stream (samples
   * included) and the samples.
   */
  private static PCollectionTuple block(PCollection<?> input, BlockEntriesFn fn, boolean oneKey) {
    PCollectionTuple out = input.apply(ParDo.of(fn).withOutputTags(BlockEntriesFn.BLOCKS,
        oneKey ? TupleTagList.of(BlockEntriesFn.SAMPLES) : TupleTagList.empty()));
    PCollection<KV<byte[], EntryBlock>> blocks =
        out.get(BlockEntriesFn.BLOCKS).setCoder(KvCoder.of(ByteArrayCoder.of(), EntryBlockCoder.of()));
    PCollection<KV<String, PlanGroupFn.Samples>> samples =
        (oneKey ? out.get(BlockEntriesFn.SAMPLES) : blocks.apply(ParDo.of(new SampleBlocks.PickFn())))
            .setCoder(KvCoder.of(StringUtf8Coder.of(), new PlanGroupFn.SamplesCoder()));
    return PCollectionTuple.of(BlockEntriesFn.BLOCKS, blocks).and(BlockEntriesFn.SAMPLES, samples);
  }

  /** A source's pages: lists of 1 to 60 entries, each entry blocked as if it came alone. */
  @Test
  void entriesInListsAreBlockedLikeEntriesOneByOne(TestPipeline p) {
    List<List<IndexEntry>> pages = new ArrayList<>();
    List<IndexEntry> all = entries();
    Random rnd = new Random(11);
    for (int i = 0; i < all.size(); ) {
      int n = Math.min(all.size() - i, 1 + rnd.nextInt(60));
      pages.add(new ArrayList<>(all.subList(i, i + n)));
      i += n;
    }
    smallBudget(p, false, p.apply(Create.of(pages).withCoder(ListCoder.of(IndexEntryCoder.of()))));
  }

  private void smallBudget(TestPipeline p, boolean oneKey) {
    smallBudget(p, oneKey, p.apply(Create.of(entries()).withCoder(IndexEntryCoder.of())));
  }

  /** Blocks {@code input} ({@link #entries()}, one by one or in lists) on a small budget and checks the outputs. */
  private void smallBudget(TestPipeline p, boolean oneKey, PCollection<?> input) {
    PCollectionTuple out = block(input, new BlockEntriesFn(7, oneKey, 4096), oneKey);
    PAssert.that(out.get(BlockEntriesFn.BLOCKS))
        .satisfies(blocks -> {
          Map<String, IndexEntry> seen = new HashMap<>();
          int count = 0;
          int samples = 0;
          for (var kv : blocks) {
            if (SampleBlocks.isSamples(kv.getKey())) {
              samples++;
              continue;
            }
            count++;
            List<IndexEntry> inBlock = kv.getValue().entries();
            KeyValue group = inBlock.get(0).group();
            assertThat("a block is keyed by its group", kv.getKey(), equalTo(AssignPartFn.prefix(group)));
            assertThat(inBlock.size() <= BlockEntriesFn.BLOCK_ENTRIES, is(true));
            for (IndexEntry e : inBlock) {
              assertThat("one group in a block", e.group(), equalTo(group));
              assertThat("entry " + e + " came once", seen.put(e.keys().get(1).text(), e) == null, is(true));
            }
          }
          List<IndexEntry> expected = entries();
          assertThat(seen.size(), is(expected.size()));
          for (IndexEntry e : expected) {
            IndexEntry got = seen.get(e.keys().get(1).text());
            assertThat(got, equalTo(e));
            assertThat("the group key as stored", got.group().text(), equalTo(e.group().text()));
          }
          assertThat("the budget emitted blocks early", count, greaterThan(3 * groupsOf(expected).size()));
          assertThat("samples among the blocks only without one key", samples > 0, is(!oneKey));
          return null;
        });
    PAssert.that(out.get(BlockEntriesFn.SAMPLES)).satisfies(samples -> {
          assertThat(countedUnderTheirKeys(samples, oneKey), equalTo(groupsOf(entries())));
          return null;
        });
    p.run().waitUntilFinish();
  }

  /**
   * The entries the samples count per group id, having checked that each group's samples are keyed by its bucket
   * (or, with {@code oneKey}, by {@link BlockEntriesFn#ALL_GROUPS}).
   */
  private static Map<String, Long> countedUnderTheirKeys(Iterable<KV<String, PlanGroupFn.Samples>> samples,
      boolean oneKey) {
    Map<String, Long> counted = new HashMap<>();
    for (var kv : samples) {
      for (var g : kv.getValue().byGroup.entrySet()) {
        String key = oneKey ? BlockEntriesFn.ALL_GROUPS : BlockEntriesFn.bucketKey(BlockEntriesFn.bucketOf(g.getKey()));
        assertThat("keyed by its group's bucket, or under one key", kv.getKey(), equalTo(key));
        counted.merge(g.getKey(), g.getValue().count, Long::sum);
      }
    }
    return counted;
  }

  /** Entries per group id. */
  static Map<String, Long> groupsOf(List<IndexEntry> entries) {
    Map<String, Long> n = new HashMap<>();
    for (IndexEntry e : entries) {
      n.merge(OrderGroups.groupId(e.group()), 1L, Long::sum);
    }
    return n;
  }

  /** 200 groups of 1 to 30 entries and one of 2,500, number group keys written two ways, shuffled. */
  static List<IndexEntry> entries() {
    Random rnd = new Random(5);
    List<IndexEntry> all = new ArrayList<>();
    for (int g = 0; g < 201; g++) {
      int size = g == 0 ? 2_500 : 1 + rnd.nextInt(30);
      for (int i = 0; i < size; i++) {
        String group = i % 3 == 0 ? g + ".0" : Integer.toString(g);
        all.add(new IndexEntry(KeyValue.parse(KeyType.N, group),
            List.of(KeyValue.ofString("k" + rnd.nextInt(1000)), KeyValue.ofString("pk" + g + "#" + i))));
      }
    }
    Collections.shuffle(all, rnd);
    return all;
  }
}
