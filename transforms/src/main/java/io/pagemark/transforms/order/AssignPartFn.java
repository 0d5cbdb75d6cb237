package io.pagemark.transforms.order;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.key.KeyValue;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollectionView;

/**
 * Keys each block of a group's entries ({@link BlockEntriesFn}) by its part ({@link #partKey}). A block of a group of
 * one part passes whole; a block of a bigger group is split by its plan, each entry going to the part its sort key
 * falls in. The plans are read once per bundle.
 */
final class AssignPartFn extends DoFn<KV<byte[], List<IndexEntry>>, KV<byte[], List<IndexEntry>>> {
  private final PCollectionView<Map<String, GroupPlan>> plans;
  private transient Map<String, GroupPlan> planOf;

  AssignPartFn(PCollectionView<Map<String, GroupPlan>> plans) {
    this.plans = plans;
  }

  @StartBundle
  public void startBundle() {
    planOf = null;
  }

  @ProcessElement
  public void process(ProcessContext c) {
    if (planOf == null) {
      planOf = c.sideInput(plans);
    }
    byte[] prefix = c.element().getKey();
    List<IndexEntry> block = c.element().getValue();
    GroupPlan plan = planOf.isEmpty() ? GroupPlan.SINGLE
        : planOf.getOrDefault(OrderGroups.groupId(block.get(0).group()), GroupPlan.SINGLE);
    if (plan.parts() == 1) {
      c.output(KV.of(partKey(prefix, 0), block));
      return;
    }
    List<List<IndexEntry>> parts = new ArrayList<>(java.util.Collections.nCopies(plan.parts(), null));
    for (IndexEntry e : block) {
      int part = plan.partOf(e.sortKey().sortableBytes());
      if (parts.get(part) == null) {
        parts.set(part, new ArrayList<>());
      }
      parts.get(part).add(e);
    }
    for (int part = 0; part < parts.size(); part++) {
      if (parts.get(part) != null) {
        c.output(KV.of(partKey(prefix, part), parts.get(part)));
      }
    }
  }

  /** What every part key of a group starts with: the group key's type code and canonical bytes. */
  static byte[] prefix(KeyValue group) {
    byte[] b = group.sortableBytes();
    byte[] p = new byte[1 + b.length];
    p[0] = group.type().code();
    System.arraycopy(b, 0, p, 1, b.length);
    return p;
  }

  /** The shuffle key of a part: the group's prefix, then the part number. */
  static byte[] partKey(byte[] prefix, int part) {
    byte[] k = Arrays.copyOf(prefix, prefix.length + Integer.BYTES);
    ByteBuffer.wrap(k, prefix.length, Integer.BYTES).putInt(part);
    return k;
  }

  /** The part number in a key made by {@link #partKey}. */
  static int partOf(byte[] partKey) {
    return ByteBuffer.wrap(partKey, partKey.length - Integer.BYTES, Integer.BYTES).getInt();
  }
}
