package io.pagemark.transforms.order;

import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.CoderException;

/**
 * Encodes a {@link KeyValue} as its type code, a varint length and its stored bytes. Not deterministic in Beam's
 * sense: a number keeps the decimal text DynamoDB returned, so equal numbers written differently ("1", "1.0") encode
 * differently. Never group by a {@code KeyValue}; group by its type and {@link KeyValue#sortableBytes()} (see
 * {@link OrderGroups#groupId}).
 */
public final class KeyValueCoder extends AtomicCoder<KeyValue> {
  private static final KeyValueCoder INSTANCE = new KeyValueCoder();

  private KeyValueCoder() {}

  public static KeyValueCoder of() {
    return INSTANCE;
  }

  @Override
  public void encode(KeyValue value, OutputStream outStream) throws IOException {
    DataOutputStream out = new DataOutputStream(outStream);
    out.writeByte(value.type().code());
    byte[] b = value.bytes();
    writeVarInt(out, b.length);
    out.write(b);
  }

  @Override
  public KeyValue decode(InputStream inStream) throws IOException {
    DataInputStream in = new DataInputStream(inStream);
    KeyType type;
    try {
      type = KeyType.fromCode(in.readByte());
    } catch (IllegalArgumentException e) {
      throw new CoderException(e.getMessage());
    }
    byte[] b = new byte[readVarInt(in)];
    in.readFully(b);
    return KeyValue.of(type, b);
  }

  static final String NOT_DETERMINISTIC =
      "numbers keep their decimal text, so equal numbers written differently (\"1\", \"1.0\") encode differently;"
          + " group by the key's type and KeyValue.sortableBytes() instead";

  @Override
  public void verifyDeterministic() throws NonDeterministicException {
    throw new NonDeterministicException(this, NOT_DETERMINISTIC);
  }

  static void writeVarInt(DataOutputStream out, int v) throws IOException {
    while ((v & ~0x7F) != 0) {
      out.writeByte((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    out.writeByte(v);
  }

  static int readVarInt(DataInputStream in) throws IOException {
    int v = 0;
    for (int shift = 0; shift < 32; shift += 7) {
      int b = in.readUnsignedByte();
      v |= (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return v;
      }
    }
    throw new CoderException("varint too long");
  }
}
