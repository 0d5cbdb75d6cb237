package io.pagemark.transforms.sink.jdbc;

import io.pagemark.format.IndexRecord;
import io.pagemark.key.KeyValue;
import io.pagemark.transforms.order.KeyValueCoder;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.BooleanCoder;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;

/**
 * One entry row on its way to PostgreSQL: its group (canonical bytes), its rank in the group, its record.
 *
 * @param groupKey the group key's canonical bytes ({@code group_key})
 */
record RankedEntry(byte[] groupKey, long rank, IndexRecord record) {
  // The array compares by content, so that Beam's coder checks see a decoded copy as equal to the original.
  @Override
  public boolean equals(Object o) {
    return o instanceof RankedEntry e && Arrays.equals(groupKey, e.groupKey) && rank == e.rank
        && record.equals(e.record);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(groupKey) + Long.hashCode(rank);
  }

  /** Group key, rank, the record's run fields, its key values. */
  static final class Coder extends AtomicCoder<RankedEntry> {
    private static final Coder INSTANCE = new Coder();

    static Coder of() {
      return INSTANCE;
    }

    @Override
    public void encode(RankedEntry e, OutputStream out) throws IOException {
      ByteArrayCoder.of().encode(e.groupKey(), out);
      VarLongCoder.of().encode(e.rank(), out);
      IndexRecord r = e.record();
      VarIntCoder.of().encode(r.tiePosition(), out);
      VarIntCoder.of().encode(r.runLength(), out);
      BooleanCoder.of().encode(r.runOrderKnown(), out);
      VarIntCoder.of().encode(r.descendingSlot(), out);
      VarIntCoder.of().encode(r.keys().size(), out);
      for (KeyValue k : r.keys()) {
        KeyValueCoder.of().encode(k, out);
      }
    }

    @Override
    public RankedEntry decode(InputStream in) throws IOException {
      byte[] group = ByteArrayCoder.of().decode(in);
      long rank = VarLongCoder.of().decode(in);
      int tie = VarIntCoder.of().decode(in);
      int run = VarIntCoder.of().decode(in);
      boolean known = BooleanCoder.of().decode(in);
      int slot = VarIntCoder.of().decode(in);
      int n = VarIntCoder.of().decode(in);
      List<KeyValue> keys = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        keys.add(KeyValueCoder.of().decode(in));
      }
      return new RankedEntry(group, rank, new IndexRecord(tie, run, known, slot, keys));
    }
  }
}
