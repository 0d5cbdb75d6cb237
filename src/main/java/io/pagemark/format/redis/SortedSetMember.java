package io.pagemark.format.redis;

import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A record of a group as a sorted set member (format version 1; docs/redis.md, "Redis index format", is the
 * specification). Every member has score 0, so Redis orders a set by the members' bytes; a member starts with an
 * order-preserving, prefix-free encoding of the sort key followed by the record's position in its run of equal sort
 * keys, so that Redis's rank order is the index's (= DynamoDB's) order, and the rest of the member holds what a page
 * start needs to rebuild the record:
 *
 * <pre>
 * sort key    the sort key's {@link KeyValue#sortableBytes()} with every 0x00 written as 0x00 0xFF, then 0x00 0x00
 * tie         u32 big-endian: position in the run of equal sort keys (0 for a unique sort key)
 * run         varint: run length x 2, plus 1 when DynamoDB's order of the run is unknown
 * slot        varint: the descending slot
 * [N text]    number sort keys only: varint length + the number's decimal text as stored
 * keys        for each stored attribute after the sort key: varint length + its stored bytes
 * </pre>
 *
 * Varints are unsigned LEB128 (7 bits a byte, low bits first, high bit set on every byte but the last).
 */
public final class SortedSetMember {
  private SortedSetMember() {}

  /** The member for a record of an index whose stored attributes are {@code attributes}. */
  public static byte[] encode(IndexRecord r, List<KeyAttribute> attributes) {
    if (r.keys().size() != attributes.size()) {
      throw new IllegalArgumentException(
          "record has " + r.keys().size() + " key values; the index stores " + attributes.size());
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(64);
    KeyValue sortKey = r.sortKey();
    for (byte b : sortKey.sortableBytes()) {
      out.write(b);
      if (b == 0) {
        out.write(0xFF);
      }
    }
    out.write(0);
    out.write(0);
    int tie = r.tiePosition();
    out.write(tie >>> 24);
    out.write(tie >>> 16);
    out.write(tie >>> 8);
    out.write(tie);
    writeVarint(out, ((long) r.runLength() << 1) | (r.runOrderKnown() ? 0 : 1));
    writeVarint(out, r.descendingSlot());
    for (int i = 0; i < attributes.size(); i++) {
      KeyValue k = r.keys().get(i);
      if (k.type() != attributes.get(i).type()) {
        throw new IllegalArgumentException("attribute " + attributes.get(i).name() + " is declared "
            + attributes.get(i).type() + " but the record holds " + k.type());
      }
      if (i > 0 || k.type() == KeyType.N) {
        byte[] v = k.bytes();
        writeVarint(out, v.length);
        out.write(v, 0, v.length);
      }
    }
    return out.toByteArray();
  }

  /** The record a member holds; throws {@link IllegalArgumentException} naming the problem for a malformed one. */
  public static IndexRecord decode(byte[] m, List<KeyAttribute> attributes) {
    Reader in = new Reader(m);
    ByteArrayOutputStream sortable = new ByteArrayOutputStream(m.length);
    while (true) {
      int b = in.next("sort key");
      if (b != 0) {
        sortable.write(b);
        continue;
      }
      int escape = in.next("sort key");
      if (escape == 0) {
        break;
      }
      if (escape != 0xFF) {
        throw new IllegalArgumentException("bad escape 0x00 0x" + Integer.toHexString(escape) + " in the sort key");
      }
      sortable.write(0);
    }
    int tie = 0;
    for (int i = 0; i < 4; i++) {
      tie = (tie << 8) | in.next("tie position");
    }
    long run = in.varint("run length");
    long slot = in.varint("descending slot");
    if (run >>> 1 > Integer.MAX_VALUE || slot > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("run length or slot out of range");
    }
    List<KeyValue> keys = new ArrayList<>(attributes.size());
    KeyType sortType = attributes.get(0).type();
    byte[] sortBytes = sortable.toByteArray();
    if (sortType == KeyType.N) {
      KeyValue n = KeyValue.of(KeyType.N, in.value("number sort key"));
      if (!Arrays.equals(n.sortableBytes(), sortBytes)) {
        throw new IllegalArgumentException("number sort key text does not match its encoding");
      }
      keys.add(n);
    } else {
      keys.add(KeyValue.of(sortType, sortBytes));
    }
    for (int i = 1; i < attributes.size(); i++) {
      keys.add(KeyValue.of(attributes.get(i).type(), in.value(attributes.get(i).name())));
    }
    if (in.at != m.length) {
      throw new IllegalArgumentException((m.length - in.at) + " bytes after the last key value");
    }
    return new IndexRecord(tie, (int) (run >>> 1), (run & 1) == 0, (int) slot, keys);
  }

  static void writeVarint(ByteArrayOutputStream out, long v) {
    while ((v & ~0x7FL) != 0) {
      out.write((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }

  private static final class Reader {
    private final byte[] b;
    private int at;

    Reader(byte[] b) {
      this.b = b;
    }

    int next(String what) {
      if (at >= b.length) {
        throw new IllegalArgumentException("member ends inside the " + what);
      }
      return b[at++] & 0xFF;
    }

    long varint(String what) {
      long v = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        int x = next(what);
        v |= (long) (x & 0x7F) << shift;
        if ((x & 0x80) == 0) {
          return v;
        }
      }
      throw new IllegalArgumentException("varint too long in the " + what);
    }

    byte[] value(String what) {
      long n = varint(what);
      if (n > b.length - at) {
        throw new IllegalArgumentException("member ends inside the value of " + what);
      }
      byte[] v = Arrays.copyOfRange(b, at, at + (int) n);
      at += (int) n;
      return v;
    }
  }
}
