package io.pagemark.transforms.order;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.key.KeyValue;
import java.util.List;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TupleTag;

/**
 * The one step that touches every entry before the shuffle: encodes a bundle's entries of each group into blocks of
 * up to {@value #BLOCK_ENTRIES} ({@link #BLOCKS}, keyed by the group's key prefix, see {@link AssignPartFn#prefix}),
 * and counts and samples each group: one element per bundle and bucket of groups among the blocks
 * ({@link SampleBlocks}), or with {@code oneKey} one element per bundle holding every group's, on {@link #SAMPLES} (see
 * {@link OrderGroups}). Each key's order-preserving bytes are computed here, once: every later step compares bytes
 * ({@link EntryBlock}).
 *
 * <p>Why blocks: a runner pays per record it moves. Assigning parts needs the plans, which need every entry first, so
 * on Flink's batch runner the entries cross a materialized exchange before they are assigned, then the shuffle, which
 * compares whole records whenever keys are equal (as all of a part's are). Blocks of a thousand entries make both
 * cheap. Why per-bundle samples: a combiner's input is serialized and sorted whole on Flink before it is combined.
 * Samples are chosen by a hash of each entry's keys, so a group's plan does not depend on how entries fall into
 * bundles. Why buckets: each element costs every planning step a record (read, sorted, combined), so a table of many
 * small groups would otherwise hand the plans an element per group and bundle. Memory stays bounded: the blocks
 * waiting and the groups held take at most about {@value #MAX_BYTES_HELD} bytes (a group's bookkeeping counted as
 * {@value #GROUP_BYTES}); when they would take more, every waiting block is emitted, and when the groups alone take
 * half of it, their samples too. The budget is in bytes rather than entries
 * because it sets the size of the blocks of a table of many small groups: with {@code G} groups in a bundle, a block
 * holds about {@code budget / (G * entry bytes)} entries, and the runner pays per block, not per entry. Entries must
 * be in the global window (a build is a batch job).
 *
 * <p>An element is an entry, or a list of entries (a source's page of them, {@link OrderGroups#batchesWithEntryCounts}):
 * both are blocked alike, entry by entry in the list's order. A runner pays for every element it hands a step (the
 * DoFn call, the metrics scope, the output's wrapping), so a source that hands over a page at a time spares it that
 * for all but one entry of the page.
 */
final class BlockEntriesFn extends DoFn<Object, KV<byte[], EntryBlock>> {
  static final TupleTag<KV<byte[], EntryBlock>> BLOCKS = new TupleTag<>("blocks") {};
  static final TupleTag<KV<String, PlanGroupFn.Samples>> SAMPLES = new TupleTag<>("samples") {};
  /** The key of every group's samples with {@code oneKey}: no group's id (those have a ':'). */
  static final String ALL_GROUPS = "all";
  /**
   * Without {@code oneKey}, into how many buckets (by a hash of the group's id) a bundle's samples go, one element a
   * bucket: enough keys to spread the planning over a cluster's workers and to keep each key's groups few, and few
   * enough that a table of many small groups does not hand the planning steps an element per group.
   */
  static final int SAMPLE_BUCKETS = 1024;
  static final int BLOCK_ENTRIES = 1_000;
  static final int MAX_BYTES_HELD = 16 << 20;
  /** What holding one group costs besides its block (its key, prefix, sample and map entry), about. */
  static final int GROUP_BYTES = 256;
  /** The room a group's first block starts with. */
  static final int FIRST_BLOCK_BYTES = 1024;

  private final long sampleEvery;
  private final boolean oneKey;
  private final long maxBytesHeld;
  private transient GroupTable<Group> groups;
  /** Bytes of the waiting blocks. */
  private transient long heldBytes;
  /** The receiver of the element being processed, and where {@link #toReceiver} hands blocks and samples. */
  private transient MultiOutputReceiver receiver;
  /** Blocks and samples to {@link #receiver}: one object a bundle rather than one an entry. */
  private transient Out toReceiver;

  /** What a bundle holds of one group. */
  private static final class Group {
    final KeyValue key;
    final byte[] prefix;
    final PlanGroupFn.Sample sample = new PlanGroupFn.Sample();
    EntryBlock.Writer block;
    /** The room a new block starts with: about what this group's last block took (so that few blocks grow). */
    int blockBytes = FIRST_BLOCK_BYTES;

    Group(KeyValue key) {
      this.key = key;
      this.prefix = AssignPartFn.prefix(key);
    }
  }

  /** Where blocks and samples go: a bundle's receiver, or its finishing context. */
  private interface Out {
    void block(KV<byte[], EntryBlock> block);

    /** With {@code oneKey}; else samples go among the blocks ({@link SampleBlocks}). */
    void sample(KV<String, PlanGroupFn.Samples> sample);
  }

  /**
   * Samples one entry in about {@code sampleEvery}; with {@code oneKey}, all of a bundle's samples go in one element
   * keyed {@link #ALL_GROUPS} on {@link #SAMPLES}, else the samples of the groups of each of {@value #SAMPLE_BUCKETS}
   * buckets in one keyed by the bucket ({@link #bucketKey}), in the blocks' stream ({@link SampleBlocks}: the step then
   * has one output, {@link #BLOCKS}).
   */
  BlockEntriesFn(long sampleEvery, boolean oneKey) {
    this(sampleEvery, oneKey, MAX_BYTES_HELD);
  }

  /** With another budget than {@value #MAX_BYTES_HELD} bytes (for tests: a small one makes every path run). */
  BlockEntriesFn(long sampleEvery, boolean oneKey, long maxBytesHeld) {
    this.sampleEvery = sampleEvery;
    this.oneKey = oneKey;
    this.maxBytesHeld = maxBytesHeld;
  }

  @StartBundle
  public void startBundle() {
    groups = new GroupTable<>();
    heldBytes = 0;
    toReceiver = new Out() {
      @Override
      public void block(KV<byte[], EntryBlock> block) {
        receiver.get(BLOCKS).output(block);
      }

      @Override
      public void sample(KV<String, PlanGroupFn.Samples> sample) {
        receiver.get(SAMPLES).output(sample);
      }
    };
  }

  /**
   * Blocks an entry, or each entry of a list of them.
   *
   * @throws ClassCastException if the element is neither an {@link IndexEntry} nor a list of them
   */
  @ProcessElement
  public void process(@Element Object element, MultiOutputReceiver receiver) {
    this.receiver = receiver;
    if (element instanceof IndexEntry) {
      add((IndexEntry) element);
    } else {
      for (Object e : (List<?>) element) {
        add((IndexEntry) e);
      }
    }
  }

  private void add(IndexEntry e) {
    Out out = toReceiver;
    Group g = groups.get(e.group());
    if (g == null) {
      if ((long) groups.size() * GROUP_BYTES >= maxBytesHeld / 2) {
        emitAll(out, true);
      }
      g = new Group(e.group());
      groups.put(e.group(), g);
    }
    List<KeyValue> keys = e.keys();
    // S and B sort as stored: only numbers need order-preserving bytes of their own
    byte[][] numbersSortable = EntryBlock.Writer.numbersSortable(keys);
    g.sample.add(keys, numbersSortable, sampleEvery);
    if (g.block == null) {
      g.block = new EntryBlock.Writer(e.group(), g.blockBytes);
    }
    int before = g.block.size();
    g.block.add(e.group(), keys, numbersSortable);
    heldBytes += g.block.size() - before;
    if (g.block.count() >= BLOCK_ENTRIES) {
      emitBlock(g, out);
    } else if (heldBytes + (long) groups.size() * GROUP_BYTES >= maxBytesHeld) {
      emitAll(out, false);
    }
  }

  @FinishBundle
  public void finishBundle(FinishBundleContext c) {
    emitAll(new Out() {
      @Override
      public void block(KV<byte[], EntryBlock> block) {
        c.output(BLOCKS, block, BoundedWindow.TIMESTAMP_MIN_VALUE, GlobalWindow.INSTANCE);
      }

      @Override
      public void sample(KV<String, PlanGroupFn.Samples> sample) {
        c.output(SAMPLES, sample, BoundedWindow.TIMESTAMP_MIN_VALUE, GlobalWindow.INSTANCE);
      }
    }, true);
    groups = null;
  }

  /** Emits every waiting block, and with {@code samples} every sample too (then the groups are forgotten). */
  private void emitAll(Out out, boolean samples) {
    PlanGroupFn.Samples all = samples && oneKey ? new PlanGroupFn.Samples() : null;
    PlanGroupFn.Samples[] buckets = samples && !oneKey ? new PlanGroupFn.Samples[SAMPLE_BUCKETS] : null;
    for (int i = 0; i < groups.size(); i++) {
      Group g = groups.valueAt(i);
      if (g.block != null) {
        emitBlock(g, out);
      }
      if (samples) {
        String id = OrderGroups.groupId(g.key);
        PlanGroupFn.Samples into = all;
        if (into == null) {
          int b = bucketOf(id);
          into = buckets[b];
          if (into == null) {
            into = new PlanGroupFn.Samples();
            buckets[b] = into;
          }
        }
        into.byGroup.put(id, g.sample);
      }
    }
    if (all != null && !all.byGroup.isEmpty()) {
      out.sample(KV.of(ALL_GROUPS, all));
    }
    if (buckets != null) {
      for (int b = 0; b < buckets.length; b++) {
        if (buckets[b] != null) {
          out.block(SampleBlocks.of(KV.of(bucketKey(b), buckets[b]))); // among the blocks: one output
        }
      }
    }
    if (samples) {
      groups.clear();
    }
  }

  /** The bucket of the group whose {@link OrderGroups#groupId} is {@code id}: the same on every worker. */
  static int bucketOf(String id) {
    return Math.floorMod(id.hashCode(), SAMPLE_BUCKETS);
  }

  /** The key of a bucket's samples: no group's id (those have a ':'), nor {@link #ALL_GROUPS}. */
  static String bucketKey(int bucket) {
    return "bucket-" + bucket;
  }

  private void emitBlock(Group g, Out out) {
    heldBytes -= g.block.size();
    g.blockBytes = g.block.size() + g.block.size() / 8;
    out.block(KV.of(g.prefix, g.block.finish()));
    g.block = null;
  }
}
