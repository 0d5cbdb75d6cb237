package io.pagemark.transforms.order;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;

/**
 * Samples that travel in the blocks' stream: on runners that shuffle, {@link BlockEntriesFn} emits a bundle's samples
 * of a bucket of groups as a block of no entries whose bytes are the samples ({@link PlanGroupFn.SamplesCoder}), keyed
 * by {@link #KEY} followed by the samples' key. {@link PickFn} picks them out for the planning steps, and
 * {@link AssignPartFn} passes over them.
 *
 * <p>Why: on Flink's batch runner a Beam step with two outputs becomes one data set that a step per output reads
 * whole, so every block sent on an output of its own crossed one more task, read and written once more, on its way to
 * {@code Assign parts}. With one output, {@code Assign parts} reads the scan's output itself (docs/build-speed.md,
 * "Twenty-first round").
 */
final class SampleBlocks {
  /**
   * The first byte of a samples element's key: no key type's code (so never the start of a group's prefix or part
   * key), nor {@link AssignPartFn#SHARED}.
   */
  static final byte KEY = (byte) 0xFE;

  private SampleBlocks() {}

  /** Samples as an element of the blocks' stream. */
  static KV<byte[], EntryBlock> of(KV<String, PlanGroupFn.Samples> samples) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      new PlanGroupFn.SamplesCoder().encode(samples.getValue(), out);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
    }
    byte[] bytes = out.toByteArray();
    byte[] id = samples.getKey().getBytes(StandardCharsets.UTF_8);
    byte[] key = new byte[1 + id.length];
    key[0] = KEY;
    System.arraycopy(id, 0, key, 1, id.length);
    return KV.of(key, new EntryBlock(bytes, bytes.length, 0));
  }

  /** Whether an element of the blocks' stream with this key holds samples ({@link #of}) rather than entries. */
  static boolean isSamples(byte[] key) {
    return key.length > 0 && key[0] == KEY;
  }

  /**
   * The samples an element made by {@link #of} holds.
   *
   * @throws IllegalArgumentException if the element holds entries
   */
  static KV<String, PlanGroupFn.Samples> samples(KV<byte[], EntryBlock> element) {
    byte[] key = element.getKey();
    if (!isSamples(key)) {
      throw new IllegalArgumentException("a block of entries, not of samples");
    }
    EntryBlock b = element.getValue();
    try {
      return KV.of(new String(key, 1, key.length - 1, StandardCharsets.UTF_8),
          new PlanGroupFn.SamplesCoder().decode(new ByteArrayInputStream(b.bytes(), 0, b.length())));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The samples in the blocks' stream, decoded; the blocks of entries are left out. */
  static final class PickFn extends DoFn<KV<byte[], EntryBlock>, KV<String, PlanGroupFn.Samples>> {
    @ProcessElement
    public void process(@Element KV<byte[], EntryBlock> element, OutputReceiver<KV<String, PlanGroupFn.Samples>> out) {
      if (isSamples(element.getKey())) {
        out.output(samples(element));
      }
    }
  }
}
