package io.pagemark.transforms.order;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.key.KeyValue;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollectionView;

/**
 * Keys each entry by its part: the group key's type code and canonical bytes, then the part number in four bytes
 * ({@link #partKey}). A byte key, rather than text, is what the shuffle compares and copies for every entry. The plans
 * are read once per bundle and each group's plan and key prefix are remembered (for at most
 * {@value #MAX_GROUPS_HELD} groups at once), so an entry costs a hash lookup, not a side-input read and two strings.
 */
final class AssignPartFn extends DoFn<IndexEntry, KV<byte[], IndexEntry>> {
  static final int MAX_GROUPS_HELD = 10_000;

  private final PCollectionView<Map<String, GroupPlan>> plans;
  private transient Map<String, GroupPlan> planOf;
  private transient Map<KeyValue, Group> groups;

  /** A group's plan and the prefix of its part keys. */
  private record Group(GroupPlan plan, byte[] prefix) {}

  AssignPartFn(PCollectionView<Map<String, GroupPlan>> plans) {
    this.plans = plans;
  }

  @StartBundle
  public void startBundle() {
    planOf = null;
    groups = new HashMap<>();
  }

  @ProcessElement
  public void process(ProcessContext c) {
    IndexEntry e = c.element();
    Group g = groups.get(e.group());
    if (g == null) {
      if (planOf == null) {
        planOf = c.sideInput(plans);
      }
      if (groups.size() >= MAX_GROUPS_HELD) {
        groups.clear();
      }
      g = new Group(planOf.getOrDefault(OrderGroups.groupId(e.group()), GroupPlan.SINGLE), prefix(e.group()));
      groups.put(e.group(), g);
    }
    int part = g.plan().parts() == 1 ? 0 : g.plan().partOf(e.sortKey().sortableBytes());
    c.output(KV.of(partKey(g.prefix(), part), e));
  }

  private static byte[] prefix(KeyValue group) {
    byte[] b = group.sortableBytes();
    byte[] p = new byte[1 + b.length];
    p[0] = (byte) group.type().code();
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
