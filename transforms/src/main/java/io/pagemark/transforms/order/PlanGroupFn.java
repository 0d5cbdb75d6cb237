package io.pagemark.transforms.order;

import io.pagemark.key.KeyValue;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.beam.sdk.transforms.Combine;

/**
 * Merges the samples of a group ({@link SampleGroupsFn} counts and samples each bundle's entries), then plans its
 * parts: a group of at most {@code maxPartEntries} is one part; a bigger one is cut at sampled sort keys into about
 * {@code count / maxPartEntries} parts. The sample is deterministic (an entry is sampled when a hash of its keys falls
 * in a fixed bucket), so every run plans the same parts, and it is small: about 64 sort keys per
 * {@code maxPartEntries} entries.
 */
final class PlanGroupFn extends Combine.CombineFn<PlanGroupFn.Sample, PlanGroupFn.Sample, GroupPlan> {
  static final int SAMPLES_PER_PART = 64;
  private final long maxPartEntries;
  private final long sampleEvery;

  PlanGroupFn(long maxPartEntries) {
    this.maxPartEntries = maxPartEntries;
    this.sampleEvery = Math.max(1, maxPartEntries / SAMPLES_PER_PART);
  }

  /** The running count and the sampled sort keys. */
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

  /** Samples an entry at most one in {@code sampleEvery()}. */
  long sampleEvery() {
    return sampleEvery;
  }

  @Override
  public org.apache.beam.sdk.coders.Coder<Sample> getAccumulatorCoder(
      org.apache.beam.sdk.coders.CoderRegistry registry,
      org.apache.beam.sdk.coders.Coder<Sample> inputCoder) {
    return new SampleCoder();
  }

  @Override
  public org.apache.beam.sdk.coders.Coder<GroupPlan> getDefaultOutputCoder(
      org.apache.beam.sdk.coders.CoderRegistry registry,
      org.apache.beam.sdk.coders.Coder<Sample> inputCoder) {
    return new GroupPlanCoder();
  }

  @Override
  public Sample createAccumulator() {
    return new Sample();
  }

  @Override
  public Sample addInput(Sample s, Sample more) {
    s.count += more.count;
    s.sortKeys.addAll(more.sortKeys);
    return s;
  }

  @Override
  public Sample mergeAccumulators(Iterable<Sample> samples) {
    Sample merged = new Sample();
    for (Sample s : samples) {
      merged.count += s.count;
      merged.sortKeys.addAll(s.sortKeys);
    }
    return merged;
  }

  @Override
  public GroupPlan extractOutput(Sample s) {
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

  /** Encodes a sample as its count and its sort keys. */
  static final class SampleCoder extends org.apache.beam.sdk.coders.AtomicCoder<Sample> {
    @Override
    public void encode(Sample s, java.io.OutputStream out) throws java.io.IOException {
      java.io.DataOutputStream d = new java.io.DataOutputStream(out);
      d.writeLong(s.count);
      writeKeys(d, s.sortKeys);
    }

    @Override
    public Sample decode(java.io.InputStream in) throws java.io.IOException {
      java.io.DataInputStream d = new java.io.DataInputStream(in);
      Sample s = new Sample();
      s.count = d.readLong();
      s.sortKeys.addAll(readKeys(d));
      return s;
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
