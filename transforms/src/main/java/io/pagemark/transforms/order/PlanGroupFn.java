package io.pagemark.transforms.order;

import io.pagemark.key.KeyValue;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import org.apache.beam.sdk.transforms.Combine;

/**
 * Merges the samples of groups ({@link BlockEntriesFn} counts and samples each bundle's entries), then plans the
 * parts of each group that gets parts of its own: a group of at most {@code maxPartEntries} is one part; a bigger one
 * is cut at sampled sort keys into about {@code count / maxPartEntries} parts. Its output holds the plans of those
 * groups only (small groups share parts and need none). The sample is deterministic (an entry is sampled when a hash
 * of its keys falls in a fixed bucket), so every run plans the same parts, and it is small: about 64 sort keys per
 * {@code maxPartEntries} entries. Whether an input holds one group's samples or a whole bundle's, the plans are the
 * same.
 */
final class PlanGroupFn extends Combine.CombineFn<PlanGroupFn.Samples, PlanGroupFn.Samples, Map<String, GroupPlan>> {
  static final int SAMPLES_PER_PART = 64;
  private final long maxPartEntries;
  private final long sampleEvery;

  PlanGroupFn(long maxPartEntries) {
    this.maxPartEntries = maxPartEntries;
    this.sampleEvery = Math.max(1, maxPartEntries / SAMPLES_PER_PART);
  }

  /** The running count and the sampled sort keys of one group. */
  static final class Sample implements Serializable {
    private static final long serialVersionUID = 1L;
    long count;
    final List<byte[]> sortKeys = new ArrayList<>();

    /**
     * Counts an entry, and samples its sort key when the hash of its keys' order-preserving bytes is a multiple of
     * {@code every}; {@code numbersSortable} holds those bytes for its N keys, null for S and B keys (which sort as
     * stored: {@link EntryBlock.Writer#numbersSortable}).
     */
    void add(List<KeyValue> keys, byte[][] numbersSortable, long every) {
      count++;
      if (Integer.toUnsignedLong(hash(keys, numbersSortable)) % every == 0) {
        sortKeys.add(numbersSortable[0] != null ? numbersSortable[0] : keys.get(0).sortableBytes());
      }
    }
  }

  /**
   * Samples of some groups, by {@link OrderGroups#groupId}: one group's from one bundle, or every group's of a bundle
   * (see {@link BlockEntriesFn}); also the combiner's accumulator.
   */
  static final class Samples implements Serializable {
    private static final long serialVersionUID = 1L;
    final Map<String, Sample> byGroup;

    Samples() {
      this(new HashMap<>());
    }

    private Samples(Map<String, Sample> byGroup) {
      this.byGroup = byGroup;
    }

    /** One group's sample. */
    static Samples of(String groupId, Sample sample) {
      Map<String, Sample> one = new HashMap<>(2);
      one.put(groupId, sample);
      return new Samples(one);
    }

    /** The entries counted, over every group. */
    long count() {
      long n = 0;
      for (Sample s : byGroup.values()) {
        n += s.count;
      }
      return n;
    }

    /** Adds {@code more}'s counts and sort keys to this one's, leaving {@code more} as it was. */
    void add(Samples more) {
      for (Map.Entry<String, Sample> e : more.byGroup.entrySet()) {
        Sample s = byGroup.computeIfAbsent(e.getKey(), id -> new Sample());
        s.count += e.getValue().count;
        s.sortKeys.addAll(e.getValue().sortKeys);
      }
    }
  }

  /** Samples an entry at most one in {@code sampleEvery()}. */
  long sampleEvery() {
    return sampleEvery;
  }

  @Override
  public org.apache.beam.sdk.coders.Coder<Samples> getAccumulatorCoder(
      org.apache.beam.sdk.coders.CoderRegistry registry,
      org.apache.beam.sdk.coders.Coder<Samples> inputCoder) {
    return new SamplesCoder();
  }

  @Override
  public org.apache.beam.sdk.coders.Coder<Map<String, GroupPlan>> getDefaultOutputCoder(
      org.apache.beam.sdk.coders.CoderRegistry registry,
      org.apache.beam.sdk.coders.Coder<Samples> inputCoder) {
    return plansCoder();
  }

  /** The coder of this combiner's output. */
  static org.apache.beam.sdk.coders.Coder<Map<String, GroupPlan>> plansCoder() {
    return org.apache.beam.sdk.coders.MapCoder.of(
        org.apache.beam.sdk.coders.StringUtf8Coder.of(), new GroupPlanCoder());
  }

  @Override
  public Samples createAccumulator() {
    return new Samples();
  }

  @Override
  public Samples addInput(Samples s, Samples more) {
    s.add(more);
    return s;
  }

  @Override
  public Samples mergeAccumulators(Iterable<Samples> samples) {
    Samples merged = new Samples();
    for (Samples s : samples) {
      merged.add(s);
    }
    return merged;
  }

  /** The plans of the groups that get parts of their own, by group id. */
  @Override
  public Map<String, GroupPlan> extractOutput(Samples samples) {
    Map<String, GroupPlan> own = new TreeMap<>();
    for (Map.Entry<String, Sample> e : samples.byGroup.entrySet()) {
      GroupPlan plan = plan(e.getValue());
      if (plan.own()) {
        own.put(e.getKey(), plan);
      }
    }
    return own;
  }

  /** The plan of a group with this sample. */
  GroupPlan plan(Sample s) {
    if (s.count <= maxSharingEntries()) {
      return GroupPlan.SHARED;
    }
    if (s.count <= maxPartEntries || s.sortKeys.isEmpty()) {
      return GroupPlan.ALONE;
    }
    List<byte[]> keys = new ArrayList<>(s.sortKeys);
    keys.sort(Arrays::compareUnsigned);
    int parts = (int) Math.min(keys.size(), (s.count + maxPartEntries - 1) / maxPartEntries);
    // Every boundary is a sampled sort key above the previous boundary and above the smallest sample, so every part
    // holds at least the entries whose sort key equals its lower boundary (part 0: the smallest sample): none is empty.
    List<byte[]> boundaries = new ArrayList<>();
    for (int i = 1; i < parts; i++) {
      byte[] b = keys.get((int) ((long) i * keys.size() / parts));
      byte[] below = boundaries.isEmpty() ? keys.get(0) : boundaries.get(boundaries.size() - 1);
      if (Arrays.compareUnsigned(below, b) < 0) {
        boundaries.add(b);
      }
    }
    return GroupPlan.split(boundaries);
  }

  /**
   * The biggest group ordered in a shared part: a quarter of a part, so that a shared part, about half a part of
   * small groups on average ({@link OrderGroups}), stays near a part's size even with its biggest group in it.
   */
  long maxSharingEntries() {
    return maxPartEntries / 4;
  }

  /** Encodes samples as their number, then each group's id, count and sort keys. */
  static final class SamplesCoder extends org.apache.beam.sdk.coders.AtomicCoder<Samples> {
    @Override
    public void encode(Samples samples, java.io.OutputStream out) throws java.io.IOException {
      java.io.DataOutputStream d = new java.io.DataOutputStream(out);
      d.writeInt(samples.byGroup.size());
      for (Map.Entry<String, Sample> e : samples.byGroup.entrySet()) {
        byte[] id = e.getKey().getBytes(StandardCharsets.UTF_8);
        d.writeInt(id.length);
        d.write(id);
        d.writeLong(e.getValue().count);
        writeKeys(d, e.getValue().sortKeys);
      }
    }

    @Override
    public Samples decode(java.io.InputStream in) throws java.io.IOException {
      java.io.DataInputStream d = new java.io.DataInputStream(in);
      int n = d.readInt();
      Samples samples = new Samples();
      for (int i = 0; i < n; i++) {
        byte[] id = new byte[d.readInt()];
        d.readFully(id);
        Sample s = new Sample();
        s.count = d.readLong();
        s.sortKeys.addAll(readKeys(d));
        samples.byGroup.put(new String(id, StandardCharsets.UTF_8), s);
      }
      return samples;
    }
  }

  /** Encodes a plan as its boundaries. */
  static final class GroupPlanCoder extends org.apache.beam.sdk.coders.AtomicCoder<GroupPlan> {
    @Override
    public void encode(GroupPlan p, java.io.OutputStream out) throws java.io.IOException {
      java.io.DataOutputStream d = new java.io.DataOutputStream(out);
      d.writeBoolean(p.own());
      writeKeys(d, p.boundaries());
    }

    @Override
    public GroupPlan decode(java.io.InputStream in) throws java.io.IOException {
      java.io.DataInputStream d = new java.io.DataInputStream(in);
      boolean own = d.readBoolean();
      List<byte[]> b = readKeys(d);
      return new GroupPlan(b.size() + 1, b, own);
    }

    @Override
    public void verifyDeterministic() {}
  }

  static void writeKeys(java.io.DataOutputStream d, List<byte[]> keys) throws java.io.IOException {
    d.writeInt(keys.size());
    for (byte[] k : keys) {
      d.writeInt(k.length);
      d.write(k);
    }
  }

  static List<byte[]> readKeys(java.io.DataInputStream d) throws java.io.IOException {
    int n = d.readInt();
    List<byte[]> keys = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      byte[] k = new byte[d.readInt()];
      d.readFully(k);
      keys.add(k);
    }
    return keys;
  }

  private static int hash(List<KeyValue> keys, byte[][] numbersSortable) {
    CRC32C crc = new CRC32C();
    for (int i = 0; i < keys.size(); i++) {
      crc.update(keys.get(i).type().code());
      if (numbersSortable[i] != null) {
        crc.update(numbersSortable[i]);
      } else {
        keys.get(i).updateChecksum(crc); // S and B: the stored bytes are the sortable ones
      }
    }
    return (int) crc.getValue();
  }
}
