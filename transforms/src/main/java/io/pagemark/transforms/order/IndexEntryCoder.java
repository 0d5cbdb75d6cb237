package io.pagemark.transforms.order;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.util.VarInt;

/**
 * Encodes an {@link IndexEntry} as one block: a varint block length, then the group key, the number of stored keys
 * and each key (a type code, a varint length and the stored bytes). Every entry crosses a shuffle, and a runner's
 * streams cost a virtual call per byte read: one bulk read of the block, decoded in memory, is what makes the shuffle
 * cheap. Not deterministic (numbers keep their text): see {@link KeyValueCoder}.
 */
public final class IndexEntryCoder extends AtomicCoder<IndexEntry> {
  private static final IndexEntryCoder INSTANCE = new IndexEntryCoder();

  private IndexEntryCoder() {}

  public static IndexEntryCoder of() {
    return INSTANCE;
  }

  @Override
  public void encode(IndexEntry value, OutputStream outStream) throws IOException {
    List<KeyValue> keys = value.keys();
    byte[][] stored = new byte[keys.size() + 1][];
    stored[0] = value.group().bytes();
    int length = sizeOf(stored[0]) + VarInt.getLength(keys.size());
    for (int i = 0; i < keys.size(); i++) {
      stored[i + 1] = keys.get(i).bytes();
      length += sizeOf(stored[i + 1]);
    }
    byte[] block = new byte[VarInt.getLength(length) + length];
    int at = putVarInt(block, 0, length);
    at = put(block, at, value.group().type(), stored[0]);
    at = putVarInt(block, at, keys.size());
    for (int i = 0; i < keys.size(); i++) {
      at = put(block, at, keys.get(i).type(), stored[i + 1]);
    }
    outStream.write(block);
  }

  @Override
  public IndexEntry decode(InputStream inStream) throws IOException {
    int length = VarInt.decodeInt(inStream);
    byte[] block = inStream.readNBytes(length);
    if (block.length != length) {
      throw new java.io.EOFException("an index entry of " + length + " bytes ends after " + block.length);
    }
    Reader r = new Reader(block);
    KeyValue group = r.key();
    int n = r.varInt();
    List<KeyValue> keys = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      keys.add(r.key());
    }
    if (r.at != block.length) {
      throw new CoderException("an index entry of " + length + " bytes holds " + r.at);
    }
    return new IndexEntry(group, keys);
  }

  @Override
  public void verifyDeterministic() throws NonDeterministicException {
    verifyDeterministic(this, KeyValueCoder.NOT_DETERMINISTIC, KeyValueCoder.of());
  }

  private static int sizeOf(byte[] stored) {
    return 1 + VarInt.getLength(stored.length) + stored.length;
  }

  private static int put(byte[] block, int at, KeyType type, byte[] stored) {
    block[at++] = type.code();
    at = putVarInt(block, at, stored.length);
    System.arraycopy(stored, 0, block, at, stored.length);
    return at + stored.length;
  }

  private static int putVarInt(byte[] block, int at, int v) {
    while ((v & ~0x7F) != 0) {
      block[at++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    block[at++] = (byte) v;
    return at;
  }

  /** Reads keys out of one entry's block. */
  private static final class Reader {
    private final byte[] block;
    private int at;

    Reader(byte[] block) {
      this.block = block;
    }

    KeyValue key() throws CoderException {
      KeyType type;
      try {
        type = KeyType.fromCode(next());
      } catch (IllegalArgumentException e) {
        throw new CoderException(e.getMessage());
      }
      int n = varInt();
      if (n > block.length - at) {
        throw new CoderException("a key of " + n + " bytes overruns its index entry");
      }
      at += n;
      return KeyValue.of(type, Arrays.copyOfRange(block, at - n, at));
    }

    int varInt() throws CoderException {
      int v = 0;
      for (int shift = 0; shift < 32; shift += 7) {
        int b = next() & 0xFF;
        v |= (b & 0x7F) << shift;
        if ((b & 0x80) == 0) {
          return v;
        }
      }
      throw new CoderException("varint too long");
    }

    private byte next() throws CoderException {
      if (at >= block.length) {
        throw new CoderException("an index entry ends early");
      }
      return block[at++];
    }
  }
}
