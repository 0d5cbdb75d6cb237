package io.pagemark.transforms.order;

import io.pagemark.dynamo.IndexEntry;
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
 * Encodes an {@link IndexEntry}: its group key, the number of stored keys, then each key. Not deterministic (numbers
 * keep their text): see {@link KeyValueCoder}.
 */
public final class IndexEntryCoder extends AtomicCoder<IndexEntry> {
  private static final IndexEntryCoder INSTANCE = new IndexEntryCoder();

  private IndexEntryCoder() {}

  public static IndexEntryCoder of() {
    return INSTANCE;
  }

  @Override
  public void encode(IndexEntry value, OutputStream outStream) throws IOException {
    KeyValueCoder.of().encode(value.group(), outStream);
    DataOutputStream out = new DataOutputStream(outStream);
    KeyValueCoder.writeVarInt(out, value.keys().size());
    for (KeyValue k : value.keys()) {
      KeyValueCoder.of().encode(k, outStream);
    }
  }

  @Override
  public IndexEntry decode(InputStream inStream) throws IOException {
    KeyValue group = KeyValueCoder.of().decode(inStream);
    int n = KeyValueCoder.readVarInt(new DataInputStream(inStream));
    List<KeyValue> keys = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      keys.add(KeyValueCoder.of().decode(inStream));
    }
    return new IndexEntry(group, keys);
  }

  @Override
  public void verifyDeterministic() throws NonDeterministicException {
    verifyDeterministic(this, KeyValueCoder.NOT_DETERMINISTIC, KeyValueCoder.of());
  }
}
