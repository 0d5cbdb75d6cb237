package io.pagemark.transforms.order;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.util.VarInt;

/**
 * Encodes an {@link EntryBlock} (what {@link AssignPartFn} shuffles) as its entry count, its length and its bytes:
 * one bulk write and one bulk read per block, and no entry is decoded on the way. Not deterministic (numbers keep
 * their text): see {@link KeyValueCoder}.
 */
final class EntryBlockCoder extends AtomicCoder<EntryBlock> {
  private static final EntryBlockCoder INSTANCE = new EntryBlockCoder();

  private EntryBlockCoder() {}

  static EntryBlockCoder of() {
    return INSTANCE;
  }

  @Override
  public void encode(EntryBlock block, OutputStream outStream) throws IOException {
    VarInt.encode(block.count(), outStream);
    VarInt.encode(block.length(), outStream);
    outStream.write(block.bytes(), 0, block.length());
  }

  @Override
  public EntryBlock decode(InputStream inStream) throws IOException {
    int count = VarInt.decodeInt(inStream);
    int length = VarInt.decodeInt(inStream);
    byte[] bytes = inStream.readNBytes(length);
    if (bytes.length != length) {
      throw new EOFException("a block of " + length + " bytes ends after " + bytes.length);
    }
    return new EntryBlock(bytes, length, count);
  }

  @Override
  public void verifyDeterministic() throws NonDeterministicException {
    verifyDeterministic(this, KeyValueCoder.NOT_DETERMINISTIC, KeyValueCoder.of());
  }
}
