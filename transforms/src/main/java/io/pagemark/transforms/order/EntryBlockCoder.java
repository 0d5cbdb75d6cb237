package io.pagemark.transforms.order;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
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
 * Encodes a block of index entries of one group (what {@link AssignPartFn} shuffles) as one byte block: a varint
 * block length, the first entry's group key, the number of entries, then each entry's keys, preceded by a flag that
 * says whether the entry's group key is stored exactly as the first one (as good as always) or follows. One bulk
 * write and one bulk read per block, and one group key per block, instead of a runner's stream calls per byte and a
 * group key per entry. Decoded entries of a block share one group key object. Not deterministic (numbers keep their
 * text): see {@link KeyValueCoder}.
 */
final class EntryBlockCoder extends AtomicCoder<List<IndexEntry>> {
  private static final EntryBlockCoder INSTANCE = new EntryBlockCoder();
  private static final int SAME_GROUP = 0;
  private static final int OWN_GROUP = 1;

  private EntryBlockCoder() {}

  static EntryBlockCoder of() {
    return INSTANCE;
  }

  @Override
  public void encode(List<IndexEntry> block, OutputStream outStream) throws IOException {
    Buffer b = new Buffer(64 * (block.size() + 1));
    if (!block.isEmpty()) {
      KeyValue group = block.get(0).group();
      byte[] groupBytes = group.bytes();
      b.key(group.type(), groupBytes);
      b.varInt(block.size());
      for (IndexEntry e : block) {
        KeyValue g = e.group();
        if (g.type() == group.type() && Arrays.equals(g.bytes(), groupBytes)) {
          b.write(SAME_GROUP);
        } else {
          b.write(OWN_GROUP);
          b.key(g.type(), g.bytes());
        }
        b.varInt(e.keys().size());
        for (KeyValue k : e.keys()) {
          b.key(k.type(), k.bytes());
        }
      }
    }
    VarInt.encode(b.size(), outStream);
    b.writeTo(outStream);
  }

  @Override
  public List<IndexEntry> decode(InputStream inStream) throws IOException {
    int length = VarInt.decodeInt(inStream);
    byte[] bytes = inStream.readNBytes(length);
    if (bytes.length != length) {
      throw new EOFException("a block of " + length + " bytes ends after " + bytes.length);
    }
    if (length == 0) {
      return new ArrayList<>();
    }
    Reader r = new Reader(bytes);
    KeyValue group = r.key();
    int n = r.varInt();
    List<IndexEntry> block = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int flag = r.next();
      KeyValue g;
      if (flag == SAME_GROUP) {
        g = group;
      } else if (flag == OWN_GROUP) {
        g = r.key();
      } else {
        throw new CoderException("entry " + i + " of a block has group flag " + flag);
      }
      int k = r.varInt();
      List<KeyValue> keys = new ArrayList<>(k);
      for (int j = 0; j < k; j++) {
        keys.add(r.key());
      }
      block.add(new IndexEntry(g, keys));
    }
    if (r.at != bytes.length) {
      throw new CoderException("a block of " + length + " bytes holds " + r.at);
    }
    return block;
  }

  @Override
  public void verifyDeterministic() throws NonDeterministicException {
    verifyDeterministic(this, KeyValueCoder.NOT_DETERMINISTIC, KeyValueCoder.of());
  }

  /** A growable byte buffer that hands its array to the stream without a copy. */
  private static final class Buffer extends ByteArrayOutputStream {
    Buffer(int size) {
      super(size);
    }

    void key(KeyType type, byte[] stored) {
      write(type.code());
      varInt(stored.length);
      write(stored, 0, stored.length);
    }

    void varInt(int v) {
      while ((v & ~0x7F) != 0) {
        write((v & 0x7F) | 0x80);
        v >>>= 7;
      }
      write(v);
    }

    @Override
    public void writeTo(OutputStream out) throws IOException {
      out.write(buf, 0, count);
    }
  }

  /** Reads keys out of a block. */
  private static final class Reader {
    private final byte[] bytes;
    private int at;

    Reader(byte[] bytes) {
      this.bytes = bytes;
    }

    KeyValue key() throws CoderException {
      KeyType type;
      try {
        type = KeyType.fromCode((byte) next());
      } catch (IllegalArgumentException e) {
        throw new CoderException(e.getMessage());
      }
      int n = varInt();
      if (n > bytes.length - at) {
        throw new CoderException("a key of " + n + " bytes overruns its block");
      }
      at += n;
      return KeyValue.of(type, Arrays.copyOfRange(bytes, at - n, at));
    }

    int varInt() throws CoderException {
      int v = 0;
      for (int shift = 0; shift < 32; shift += 7) {
        int b = next();
        v |= (b & 0x7F) << shift;
        if ((b & 0x80) == 0) {
          return v;
        }
      }
      throw new CoderException("varint too long");
    }

    int next() throws CoderException {
      if (at >= bytes.length) {
        throw new CoderException("a block ends early");
      }
      return bytes[at++] & 0xFF;
    }
  }
}
