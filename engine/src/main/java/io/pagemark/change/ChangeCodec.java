package io.pagemark.change;

import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The binary form of changes, shared by WAL segments, version ledgers and the Beam coder (see docs/stream.md, "WAL
 * segment format"). All integers big-endian.
 *
 * <pre>
 * key value   1 type code (1 S, 2 N, 3 B) | 2 length | bytes (UTF-8 for S, decimal text for N, raw for B)
 * key list    1 count | count key values
 * version     8 ApproximateCreationDateTime in microseconds | 1 length | sequence number, ASCII digits
 * change      1 flags (bit 0: removed entry follows, bit 1: added entry follows) | version | item key list
 *             | [removed key list] | [added key list]
 * </pre>
 */
public final class ChangeCodec {
  static final int REMOVED = 1;
  static final int ADDED = 2;

  private ChangeCodec() {}

  public static void writeKey(DataOutput out, KeyValue k) throws IOException {
    byte[] b = k.bytes();
    if (b.length > 0xFFFF) {
      throw new IllegalArgumentException("key value of " + b.length + " bytes exceeds 65535");
    }
    out.writeByte(k.type().code());
    out.writeShort(b.length);
    out.write(b);
  }

  public static KeyValue readKey(DataInput in) throws IOException {
    KeyType t = KeyType.fromCode(in.readByte());
    byte[] b = new byte[in.readUnsignedShort()];
    in.readFully(b);
    return KeyValue.of(t, b);
  }

  public static void writeKeys(DataOutput out, List<KeyValue> keys) throws IOException {
    if (keys.size() > 255) {
      throw new IllegalArgumentException("at most 255 key values, not " + keys.size());
    }
    out.writeByte(keys.size());
    for (KeyValue k : keys) {
      writeKey(out, k);
    }
  }

  public static List<KeyValue> readKeys(DataInput in) throws IOException {
    int n = in.readUnsignedByte();
    List<KeyValue> keys = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      keys.add(readKey(in));
    }
    return keys;
  }

  public static void writeVersion(DataOutput out, Version v) throws IOException {
    out.writeLong(v.creationMicros());
    byte[] s = v.sequence().getBytes(StandardCharsets.US_ASCII);
    out.writeByte(s.length);
    out.write(s);
  }

  public static Version readVersion(DataInput in) throws IOException {
    long micros = in.readLong();
    byte[] s = new byte[in.readUnsignedByte()];
    in.readFully(s);
    return new Version(micros, new String(s, StandardCharsets.US_ASCII));
  }

  /** A change without its group key (the group is known from where it is stored). */
  public static void writeChange(DataOutput out, IndexChange c) throws IOException {
    out.writeByte((c.removed() != null ? REMOVED : 0) | (c.added() != null ? ADDED : 0));
    writeVersion(out, c.version());
    writeKeys(out, c.itemKey());
    if (c.removed() != null) {
      writeKeys(out, c.removed());
    }
    if (c.added() != null) {
      writeKeys(out, c.added());
    }
  }

  public static IndexChange readChange(DataInput in, KeyValue group) throws IOException {
    int flags = in.readUnsignedByte();
    if ((flags & ~(REMOVED | ADDED)) != 0 || flags == 0) {
      throw new IOException("bad change flags " + flags);
    }
    Version v = readVersion(in);
    List<KeyValue> item = readKeys(in);
    List<KeyValue> removed = (flags & REMOVED) != 0 ? readKeys(in) : null;
    List<KeyValue> added = (flags & ADDED) != 0 ? readKeys(in) : null;
    return new IndexChange(group, item, v, removed, added);
  }
}
