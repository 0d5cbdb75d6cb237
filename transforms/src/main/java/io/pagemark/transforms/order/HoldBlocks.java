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
 * {@code plans} (the step whose output becomes the plans' side input) has been made, in a bundle per bundle of blocks.
 *
 * <p>Why: the DirectRunner hands a step with a side input each bundle as soon as it is made, and puts a bundle
 * whose side input is not ready back to be tried again each time any step of the pipeline makes output, building the
 * step's evaluator anew each time (the step translated to its protocol buffer form and its DoFn deserialized, about
 * a millisecond). {@code Assign parts} received the scan's 16 bundles of blocks while the plans were being made and
 * started 229 to 285 bundles for them, a worker's CPU spent on nothing; held, it starts 16. The shared part count,
 * its other side input, is a shorter sum of the same counts and is ready first. Flink reads a step's input only
 * once its side inputs are ready, and never gets this step.
 */
final class HoldBlocks
    extends PTransform<PCollection<KV<byte[], EntryBlock>>, PCollection<KV<byte[], EntryBlock>>> {
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
        blocks.apply("Key blocks by bundle", ParDo.of(new KeyByBundleFn())).setCoder(keyed);
    PCollection<KV<Integer, KV<byte[], EntryBlock>>> made =
        plans.apply("Plans made", ParDo.of(new NothingFn())).setCoder(keyed);
    return PCollectionList.of(spread).and(made)
        .apply("Blocks and plans", Flatten.pCollections())
        .apply("Held blocks", GroupByKey.create())
        .apply("Release blocks", ParDo.of(new ReleaseFn()))
        .setCoder(blockCoder);
  }

  /**
   * Keys every block of a bundle by one random key of that bundle's: a key the DirectRunner groups copies its values
   * each time a bundle adds to it, so that one bundle per key adds each block once.
   */
  static final class KeyByBundleFn extends DoFn<KV<byte[], EntryBlock>, KV<Integer, KV<byte[], EntryBlock>>> {
    private transient int key;

    @StartBundle
    public void startBundle() {
      key = ThreadLocalRandom.current().nextInt();
    }

    @ProcessElement
    public void process(@Element KV<byte[], EntryBlock> block,
        OutputReceiver<KV<Integer, KV<byte[], EntryBlock>>> out) {
      out.output(KV.of(key, block));
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
