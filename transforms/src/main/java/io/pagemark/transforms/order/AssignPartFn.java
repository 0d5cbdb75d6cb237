package io.pagemark.transforms.order;

import io.pagemark.key.KeyValue;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollectionView;

/**
 * Keys each block of a group's entries ({@link BlockEntriesFn}) by its part ({@link #partKey}). A block of a small
 * group (one the plans do not name) goes to the shared part its group key hashes to ({@link #sharedKey}); a block of a
 * group of one part of its own passes whole; a block of a bigger group is split by its plan, each entry's bytes copied
 * to the part its sort key's bytes fall in (nothing is decoded). The plans are read once per bundle.
 *
 * <p>Why shared parts: a runner pays per key it groups by (Flink sorts and hands over each key's values; Beam's
 * DirectRunner keeps state, a timer and a bundle per key), so a table of many small groups would otherwise cost a
 * key per group.
 */
final class AssignPartFn extends DoFn<KV<byte[], EntryBlock>, KV<byte[], EntryBlock>> {
  /** The first byte of a shared part's key: no key type's code, so never the start of a group's part key. */
  static final byte SHARED = (byte) 0xFF;

  private final PCollectionView<Map<String, GroupPlan>> plans;
  private final PCollectionView<Integer> sharedParts;
  private transient Map<String, GroupPlan> planOf;
  private transient int shared;

  AssignPartFn(PCollectionView<Map<String, GroupPlan>> plans, PCollectionView<Integer> sharedParts) {
    this.plans = plans;
    this.sharedParts = sharedParts;
  }

  @StartBundle
  public void startBundle() {
    planOf = null;
  }

  @ProcessElement
  public void process(ProcessContext c) {
    if (planOf == null) {
      planOf = c.sideInput(plans);
      shared = c.sideInput(sharedParts);
    }
    byte[] prefix = c.element().getKey();
    if (SampleBlocks.isSamples(prefix)) {
      return; // the planning steps' (on runners that shuffle, samples travel among the blocks)
    }
    EntryBlock block = c.element().getValue();
    GroupPlan plan = planOf.isEmpty() ? GroupPlan.SHARED
        : planOf.getOrDefault(groupId(prefix, prefix.length), GroupPlan.SHARED);
    if (!plan.own()) {
      c.output(KV.of(sharedKey(prefix, shared), block));
      return;
    }
    if (plan.parts() == 1) {
      c.output(KV.of(partKey(prefix, 0, 1), block));
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
        c.output(KV.of(partKey(prefix, part, parts.length), parts[part].finish()));
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

  /**
   * The shuffle key of a part: the group's prefix, the part number, then the group's number of parts. The key says
   * all that ordering a part needs to know of its plan, so that ordering reads no plans: a step with a side input
   * is never chained to the group-by-key on Flink's batch runner, and every part would be serialized between them.
   */
  static byte[] partKey(byte[] prefix, int part, int parts) {
    byte[] k = Arrays.copyOf(prefix, prefix.length + 2 * Integer.BYTES);
    ByteBuffer.wrap(k, prefix.length, 2 * Integer.BYTES).putInt(part).putInt(parts);
    return k;
  }

  /**
   * The key of the shared part (of {@code parts}) that the group whose prefix is {@code prefix} is ordered in: chosen
   * by a hash of the prefix, the same on every worker.
   */
  static byte[] sharedKey(byte[] prefix, int parts) {
    long h = 0x9E3779B97F4A7C15L;
    for (byte b : prefix) {
      h = (h ^ (b & 0xFF)) * 0x100000001B3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    byte[] k = new byte[1 + Integer.BYTES];
    k[0] = SHARED;
    ByteBuffer.wrap(k, 1, Integer.BYTES).putInt((int) Math.floorMod(h, (long) Math.max(1, parts)));
    return k;
  }

  /** Whether a part key is a shared part's ({@link #sharedKey}). */
  static boolean isShared(byte[] partKey) {
    return partKey.length == 1 + Integer.BYTES && partKey[0] == SHARED;
  }

  /** The part number in a key made by {@link #partKey}. */
  static int partOf(byte[] partKey) {
    return ByteBuffer.wrap(partKey, partKey.length - 2 * Integer.BYTES, Integer.BYTES).getInt();
  }

  /** The group's number of parts in a key made by {@link #partKey}. */
  static int partsOf(byte[] partKey) {
    return ByteBuffer.wrap(partKey, partKey.length - Integer.BYTES, Integer.BYTES).getInt();
  }
}
