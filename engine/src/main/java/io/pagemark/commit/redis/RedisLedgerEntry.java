package io.pagemark.commit.redis;

import io.pagemark.change.ChangeCodec;
import io.pagemark.change.Version;

import io.pagemark.key.KeyValue;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * What a Redis group's ledger remembers of one item: the version of the last change applied to the group, and the
 * entry that change left the item at (null: the item is not in the group, a tombstone). Field and value bytes:
 *
 * <pre>
 * field   the item key list (count 1 | values), as in WAL segments: type (1), length (2), bytes
 * value   creation µs (8) | sequence (1 + s ASCII digits) | 0 (tombstone) or 1 followed by the entry's key list
 * </pre>
 *
 * Item fields start with their count (1 or 2), so no item field equals the ledger's own fields
 * ({@code stamp}, {@code group}, {@code pruned}).
 */
record RedisLedgerEntry(Version version, List<KeyValue> entry) {
  RedisLedgerEntry {
    entry = entry == null ? null : List.copyOf(entry);
  }

  static byte[] field(List<KeyValue> itemKey) {
    ByteArrayOutputStream b = new ByteArrayOutputStream(32);
    try (DataOutputStream out = new DataOutputStream(b)) {
      ChangeCodec.writeKeys(out, itemKey);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return b.toByteArray();
  }

  static List<KeyValue> itemOfField(byte[] field) {
    try {
      return ChangeCodec.readKeys(new DataInputStream(new ByteArrayInputStream(field)));
    } catch (IOException e) {
      throw new IllegalArgumentException("not an item field of a ledger", e);
    }
  }

  /** Whether a ledger field names an item (and not one of the ledger's own fields). */
  static boolean isItemField(byte[] field) {
    return field.length > 0 && (field[0] == 1 || field[0] == 2);
  }

  byte[] encode() {
    ByteArrayOutputStream b = new ByteArrayOutputStream(48);
    try (DataOutputStream out = new DataOutputStream(b)) {
      ChangeCodec.writeVersion(out, version);
      out.writeByte(entry == null ? 0 : 1);
      if (entry != null) {
        ChangeCodec.writeKeys(out, entry);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return b.toByteArray();
  }

  static RedisLedgerEntry decode(byte[] value) {
    try {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(value));
      Version v = ChangeCodec.readVersion(in);
      List<KeyValue> entry = in.readUnsignedByte() == 0 ? null : ChangeCodec.readKeys(in);
      return new RedisLedgerEntry(v, entry);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("corrupt ledger value (" + e.getMessage() + ")", e);
    }
  }
}
