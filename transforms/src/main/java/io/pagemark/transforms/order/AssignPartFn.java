package io.pagemark.transforms.order;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.key.KeyValue;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollectionView;

/**
 * Assigns each entry to its part and gathers a bundle's entries of one part into blocks of up to
 * {@value #BLOCK_ENTRIES}, keyed by the part ({@link #partKey}): the shuffle then moves, sorts and groups blocks, not
 * entries. A runner pays per shuffled record (Flink's batch sort compares whole records when keys are equal, as all
 * entries of a part's key are), so blocks of a thousand make the shuffle's cost per entry small. Memory stays bounded:
 * at most {@value #MAX_ENTRIES_HELD} entries wait in blocks (then every block is emitted) and the plans and key
 * prefixes of at most {@value #MAX_GROUPS_HELD} groups are remembered. The plans are read once per bundle. Entries
 * must be in the global window (a build is a batch job).
 */
final class AssignPartFn extends DoFn<IndexEntry, KV<byte[], List<IndexEntry>>> {
  static final int BLOCK_ENTRIES = 1_000;
  static final int MAX_ENTRIES_HELD = 50_000;
  static final int MAX_GROUPS_HELD = 10_000;

  private final PCollectionView<Map<String, GroupPlan>> plans;
  private transient Map<String, GroupPlan> planOf;
  private transient Map<KeyValue, Group> groups;
  private transient int held;

  /** A group's plan, the prefix of its part keys, and the entries of each part waiting to be emitted. */
  private static final class Group {
    final GroupPlan plan;
    final byte[] prefix;
    final List<List<IndexEntry>> blocks;

    Group(GroupPlan plan, byte[] prefix) {
      this.plan = plan;
      this.prefix = prefix;
      this.blocks = new ArrayList<>(java.util.Collections.nCopies(plan.parts(), null));
    }
  }

  AssignPartFn(PCollectionView<Map<String, GroupPlan>> plans) {
    this.plans = plans;
  }

  @StartBundle
  public void startBundle() {
    planOf = null;
    groups = new HashMap<>();
    held = 0;
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
        emitAll(c::output);
        groups.clear();
      }
      g = new Group(planOf.getOrDefault(OrderGroups.groupId(e.group()), GroupPlan.SINGLE), prefix(e.group()));
      groups.put(e.group(), g);
    }
    int part = g.plan.parts() == 1 ? 0 : g.plan.partOf(e.sortKey().sortableBytes());
    List<IndexEntry> block = g.blocks.get(part);
    if (block == null) {
      block = new ArrayList<>();
      g.blocks.set(part, block);
    }
    block.add(e);
    held++;
    if (block.size() >= BLOCK_ENTRIES) {
      emit(g, part, c::output);
    } else if (held >= MAX_ENTRIES_HELD) {
      emitAll(c::output);
    }
  }

  @FinishBundle
  public void finishBundle(FinishBundleContext c) {
    emitAll(kv -> c.output(kv, BoundedWindow.TIMESTAMP_MIN_VALUE, GlobalWindow.INSTANCE));
    groups = null;
  }

  private void emitAll(Consumer<KV<byte[], List<IndexEntry>>> out) {
    for (Group g : groups.values()) {
      for (int part = 0; part < g.blocks.size(); part++) {
        if (g.blocks.get(part) != null) {
          emit(g, part, out);
        }
      }
    }
  }

  private void emit(Group g, int part, Consumer<KV<byte[], List<IndexEntry>>> out) {
    List<IndexEntry> block = g.blocks.get(part);
    g.blocks.set(part, null);
    held -= block.size();
    out.accept(KV.of(partKey(g.prefix, part), block));
  }

  private static byte[] prefix(KeyValue group) {
    byte[] b = group.sortableBytes();
    byte[] p = new byte[1 + b.length];
    p[0] = group.type().code();
    System.arraycopy(b, 0, p, 1, b.length);
    return p;
  }

  /** The shuffle key of a part: the group key's type code and canonical bytes, then the part number. */
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
