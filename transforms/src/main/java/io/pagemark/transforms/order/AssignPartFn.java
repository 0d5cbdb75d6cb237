package io.pagemark.transforms.order;

import io.pagemark.key.KeyValue;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollectionView;

/**
 * Keys each block of a group's entries ({@link BlockEntriesFn}) by its part ({@link #partKey}). A block of a group of
 * one part passes whole; a block of a bigger group is split by its plan, each entry's bytes copied to the part its
 * sort key's bytes fall in (nothing is decoded). The plans are read once per bundle.
 */
final class AssignPartFn extends DoFn<KV<byte[], EntryBlock>, KV<byte[], EntryBlock>> {
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
    EntryBlock block = c.element().getValue();
    GroupPlan plan = planOf.isEmpty() ? GroupPlan.SINGLE
        : planOf.getOrDefault(groupId(prefix, prefix.length), GroupPlan.SINGLE);
    if (plan.parts() == 1) {
      c.output(KV.of(partKey(prefix, 0), block));
      return;
    }
    EntryBlock.Writer[] parts = new EntryBlock.Writer[plan.parts()];
    byte[] b = block.bytes();
    for (int at = block.firstEntry(), i = 0; i < block.count(); i++, at = EntryBlock.next(b, at)) {
      int sortKey = EntryBlock.skipVarInt(b, EntryBlock.keysOf(b, at));
      int from = EntryBlock.sortableFrom(b, sortKey);
      int part = plan.partOf(b, from, from + EntryBlock.sortableLength(b, sortKey));
      if (parts[part] == null) {
        parts[part] = new EntryBlock.Writer(block, block.length() / parts.length);
      }
      parts[part].copy(b, at);
    }
    for (int part = 0; part < parts.length; part++) {
      if (parts[part] != null) {
        c.output(KV.of(partKey(prefix, part), parts[part].finish()));
      }
    }
  }

  /** The {@link OrderGroups#groupId} of the group whose key prefix is {@code key[0..end)}. */
  static String groupId(byte[] key, int end) {
    return key[0] + ":" + java.util.HexFormat.of().formatHex(key, 1, end);
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
