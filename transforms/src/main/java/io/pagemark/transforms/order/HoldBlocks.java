package io.pagemark.transforms.order;

import java.util.concurrent.ThreadLocalRandom;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;

/**
 * Holds the blocks until the plans are made, for Beam's DirectRunner: the blocks come out only once every element of
 * {@code plans} (the step whose output becomes the plans' side input) has been made, in {@value #WAYS} bundles.
 *
 * <p>Why: the DirectRunner hands a step with a side input each bundle as soon as it is made, and puts a bundle
 * whose side input is not ready back to be tried again each time any step of the pipeline makes output, building the
 * step's evaluator anew each time (the step translated to its protocol buffer form and its DoFn deserialized, about
 * a millisecond). {@code Assign parts} received the scan's 16 bundles of blocks while the plans were being made and
 * started 241 to 285 bundles for them, a worker's CPU spent on nothing. Held, its blocks arrive about when the plans
 * do, in {@value #WAYS} bundles (a bundle per key: more keys would keep more workers busy and cost more bundles).
 * Flink reads the blocks after the side input is ready on its own and never gets this step.
 */
final class HoldBlocks
    extends PTransform<PCollection<KV<byte[], EntryBlock>>, PCollection<KV<byte[], EntryBlock>>> {
  /** The keys the held blocks are spread over: the bundles they come out in. */
  static final int WAYS = 8;

  private final PCollection<?> plans;

  private HoldBlocks(PCollection<?> plans) {
    this.plans = plans;
  }

  /** Holds the blocks until every element of {@code plans} is made. */
  static HoldBlocks until(PCollection<?> plans) {
    return new HoldBlocks(plans);
  }

  @Override
  public PCollection<KV<byte[], EntryBlock>> expand(PCollection<KV<byte[], EntryBlock>> blocks) {
    Coder<KV<byte[], EntryBlock>> blockCoder = blocks.getCoder();
    KvCoder<Integer, KV<byte[], EntryBlock>> keyed = KvCoder.of(VarIntCoder.of(), blockCoder);
    PCollection<KV<Integer, KV<byte[], EntryBlock>>> spread =
        blocks.apply("Spread blocks", ParDo.of(new SpreadFn())).setCoder(keyed);
    PCollection<KV<Integer, KV<byte[], EntryBlock>>> made =
        plans.apply("Plans made", ParDo.of(new NothingFn())).setCoder(keyed);
    return PCollectionList.of(spread).and(made)
        .apply("Blocks and plans", Flatten.pCollections())
        .apply("Held blocks", GroupByKey.create())
        .apply("Release blocks", ParDo.of(new ReleaseFn()))
        .setCoder(blockCoder);
  }

  /** Keys each block by one of {@value #WAYS} keys in turn (any block may go anywhere: the parts come after). */
  static final class SpreadFn extends DoFn<KV<byte[], EntryBlock>, KV<Integer, KV<byte[], EntryBlock>>> {
    private transient int next;

    @StartBundle
    public void startBundle() {
      next = ThreadLocalRandom.current().nextInt(WAYS);
    }

    @ProcessElement
    public void process(@Element KV<byte[], EntryBlock> block, OutputReceiver<KV<Integer, KV<byte[], EntryBlock>>> out) {
      out.output(KV.of(next, block));
      next = (next + 1) % WAYS;
    }
  }

  /** Makes nothing of each element: its output is complete when its input is. */
  static final class NothingFn extends DoFn<Object, KV<Integer, KV<byte[], EntryBlock>>> {
    @ProcessElement
    public void process() {}
  }

  /** Hands on every held block. */
  static final class ReleaseFn extends DoFn<KV<Integer, Iterable<KV<byte[], EntryBlock>>>, KV<byte[], EntryBlock>> {
    @ProcessElement
    public void process(@Element KV<Integer, Iterable<KV<byte[], EntryBlock>>> held,
        OutputReceiver<KV<byte[], EntryBlock>> out) {
      for (KV<byte[], EntryBlock> block : held.getValue()) {
        out.output(block);
      }
    }
  }
}
