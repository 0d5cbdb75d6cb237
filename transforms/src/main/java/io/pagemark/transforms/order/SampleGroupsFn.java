package io.pagemark.transforms.order;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.key.KeyValue;
import java.util.HashMap;
import java.util.Map;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.values.KV;

/**
 * Counts and samples each group's entries within a bundle ({@link PlanGroupFn.Sample}), and emits one sample per
 * group and bundle. The combiner that plans parts then sees a few samples per group instead of every entry: on
 * Flink's batch runner a combiner's input is serialized and sorted whole before it is combined, which cost more than
 * ordering the entries. Sampling is by a hash of each entry's keys, so the union of a group's samples, and its plan,
 * do not depend on how entries fall into bundles. At most {@value #MAX_GROUPS_HELD} groups' samples are held at once
 * (more are emitted early), so a bundle of many small groups stays small. Entries must be in the global window (a
 * build is a batch job).
 */
final class SampleGroupsFn extends DoFn<IndexEntry, KV<String, PlanGroupFn.Sample>> {
  static final int MAX_GROUPS_HELD = 10_000;
  private final long sampleEvery;
  private transient Map<KeyValue, PlanGroupFn.Sample> samples;

  SampleGroupsFn(long sampleEvery) {
    this.sampleEvery = sampleEvery;
  }

  @StartBundle
  public void startBundle() {
    samples = new HashMap<>();
  }

  @ProcessElement
  public void process(@Element IndexEntry e, OutputReceiver<KV<String, PlanGroupFn.Sample>> out) {
    PlanGroupFn.Sample s = samples.get(e.group());
    if (s == null) {
      if (samples.size() >= MAX_GROUPS_HELD) {
        samples.forEach((g, held) -> out.output(KV.of(OrderGroups.groupId(g), held)));
        samples.clear();
      }
      s = new PlanGroupFn.Sample();
      samples.put(e.group(), s);
    }
    s.add(e, sampleEvery);
  }

  @FinishBundle
  public void finishBundle(FinishBundleContext c) {
    for (Map.Entry<KeyValue, PlanGroupFn.Sample> s : samples.entrySet()) {
      c.output(KV.of(OrderGroups.groupId(s.getKey()), s.getValue()), BoundedWindow.TIMESTAMP_MIN_VALUE,
          GlobalWindow.INSTANCE);
    }
    samples = null;
  }
}
