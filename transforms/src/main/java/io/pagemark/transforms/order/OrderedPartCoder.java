package io.pagemark.transforms.order;

import io.pagemark.format.IndexRecord;
import io.pagemark.key.KeyValue;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.coders.AtomicCoder;

/**
 * Encodes an {@link OrderedPart}: group key, part, parts, then each record's tie fields and keys. Not deterministic
 * (numbers keep their text): see {@link KeyValueCoder}.
 */
public final class OrderedPartCoder extends AtomicCoder<OrderedPart> {
  private static final OrderedPartCoder INSTANCE = new OrderedPartCoder();

  private OrderedPartCoder() {}

  public static OrderedPartCoder of() {
    return INSTANCE;
  }

  @Override
  public void encode(OrderedPart value, OutputStream outStream) throws IOException {
    KeyValueCoder.of().encode(value.group(), outStream);
    DataOutputStream out = new DataOutputStream(outStream);
    KeyValueCoder.writeVarInt(out, value.part());
    KeyValueCoder.writeVarInt(out, value.parts());
    KeyValueCoder.writeVarInt(out, value.records().size());
    for (IndexRecord r : value.records()) {
      KeyValueCoder.writeVarInt(out, r.tiePosition());
      KeyValueCoder.writeVarInt(out, r.runLength());
      out.writeBoolean(r.runOrderKnown());
      KeyValueCoder.writeVarInt(out, r.descendingSlot());
      KeyValueCoder.writeVarInt(out, r.keys().size());
      for (KeyValue k : r.keys()) {
        KeyValueCoder.of().encode(k, outStream);
      }
    }
  }

  @Override
  public OrderedPart decode(InputStream inStream) throws IOException {
    KeyValue group = KeyValueCoder.of().decode(inStream);
    DataInputStream in = new DataInputStream(inStream);
    int part = KeyValueCoder.readVarInt(in);
    int parts = KeyValueCoder.readVarInt(in);
    int n = KeyValueCoder.readVarInt(in);
    List<IndexRecord> records = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int tie = KeyValueCoder.readVarInt(in);
      int run = KeyValueCoder.readVarInt(in);
      boolean known = in.readBoolean();
      int slot = KeyValueCoder.readVarInt(in);
      int k = KeyValueCoder.readVarInt(in);
      List<KeyValue> keys = new ArrayList<>(k);
      for (int j = 0; j < k; j++) {
        keys.add(KeyValueCoder.of().decode(inStream));
      }
      records.add(new IndexRecord(tie, run, known, slot, keys));
    }
    return new OrderedPart(group, part, parts, records);
  }

  @Override
  public void verifyDeterministic() throws NonDeterministicException {
    verifyDeterministic(this, KeyValueCoder.NOT_DETERMINISTIC, KeyValueCoder.of());
  }
}
