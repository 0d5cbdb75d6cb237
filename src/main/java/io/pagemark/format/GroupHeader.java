package io.pagemark.format;

import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The header of a group file: which group it holds, which key attributes each record stores, the record width, the
 * entry count, the build that wrote it and checksums. See docs/file-format.md for the byte layout.
 */
public record GroupHeader(
    String groupAttribute,
    KeyValue groupKey,
    List<KeyAttribute> attributes,
    int recordWidth,
    long entryCount,
    long buildTimeMillis,
    String buildId,
    byte[] recordsSha256) {

  public GroupHeader {
    attributes = List.copyOf(attributes);
    if (attributes.isEmpty() || (attributes.get(0).roles() & KeyAttribute.INDEX_SORT_KEY) == 0) {
      throw new IllegalArgumentException("the first stored attribute must be the index sort key");
    }
    if (buildId.getBytes(StandardCharsets.US_ASCII).length > GroupFileFormat.BUILD_ID_BYTES
        || !buildId.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
      throw new IllegalArgumentException("build id must be at most 32 printable ASCII characters: " + buildId);
    }
    if (recordsSha256.length != 32) {
      throw new IllegalArgumentException("records checksum must be 32 bytes");
    }
    recordsSha256 = recordsSha256.clone();
  }

  @Override
  public byte[] recordsSha256() {
    return recordsSha256.clone();
  }

  /** The header with the given count and checksum (used when a writer finishes). */
  GroupHeader finished(long count, byte[] sha256) {
    return new GroupHeader(
        groupAttribute, groupKey, attributes, recordWidth, count, buildTimeMillis, buildId, sha256);
  }

  /** Serialized length, a multiple of 8 (records start here). */
  public int length() {
    return encode().length;
  }

  byte[] encode() {
    try {
      ByteArrayOutputStream buf = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(buf);
      out.write(GroupFileFormat.MAGIC);
      out.writeShort(GroupFileFormat.VERSION_1);
      out.writeShort(attributes.size());
      out.writeInt(0); // header length, patched below
      out.writeInt(recordWidth);
      out.writeInt(0); // reserved flags
      out.writeLong(entryCount);
      out.writeLong(buildTimeMillis);
      out.write(Arrays.copyOf(buildId.getBytes(StandardCharsets.US_ASCII), GroupFileFormat.BUILD_ID_BYTES));
      out.write(recordsSha256);
      writeName(out, groupAttribute);
      out.writeByte(groupKey.type().code());
      writeBytes(out, groupKey.bytes());
      for (KeyAttribute a : attributes) {
        out.writeByte(a.type().code());
        out.writeByte(a.roles());
        writeName(out, a.name());
      }
      out.flush();
      int unpadded = buf.size() + 4;
      int length = (unpadded + 7) & ~7;
      byte[] bytes = Arrays.copyOf(buf.toByteArray(), length);
      ByteBuffer.wrap(bytes).putInt(12, length);
      CRC32C crc = new CRC32C();
      crc.update(bytes, 0, length - 4);
      ByteBuffer.wrap(bytes).putInt(length - 4, (int) crc.getValue());
      return bytes;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void writeName(DataOutputStream out, String name) throws IOException {
    writeBytes(out, name.getBytes(StandardCharsets.UTF_8));
  }

  private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
    if (b.length > GroupFileFormat.MAX_VALUE_BYTES) {
      throw new IllegalArgumentException("value of " + b.length + " bytes exceeds the format's 65535");
    }
    out.writeShort(b.length);
    out.write(b);
  }

  /**
   * Length of the header that starts with these 16 bytes, after checking magic and version (1 or 2; {@code
   * first16.getShort(8)} tells which).
   */
  static int peekLength(String file, ByteBuffer first16, long fileSize) throws IndexFormatException {
    byte[] magic = new byte[8];
    first16.get(0, magic);
    if (!Arrays.equals(magic, GroupFileFormat.MAGIC)) {
      throw new IndexFormatException(file, "not a pagemark group file (bad magic)");
    }
    int version = first16.getShort(8) & 0xFFFF;
    if (version != GroupFileFormat.VERSION_1 && version != GroupFileFormat.VERSION_2) {
      throw new IndexFormatException(file, "group file format version " + version
          + " is not supported (this reader knows versions 1 and 2; a newer pagemark wrote it)");
    }
    int length = first16.getInt(12);
    if (length < GroupFileFormat.FIXED_HEADER_BYTES || length % 8 != 0 || length > 1 << 20) {
      throw new IndexFormatException(file, "corrupt header (length " + length + ")");
    }
    if (length > fileSize) {
      throw new IndexFormatException(file, "truncated: header of " + length + " bytes, file of " + fileSize);
    }
    return length;
  }

  /** Checks the CRC32C in the last 4 bytes of a whole header (both versions end their header with it). */
  static void checkCrc(String file, ByteBuffer b) throws IndexFormatException {
    int length = b.limit();
    CRC32C crc = new CRC32C();
    crc.update(b.duplicate().limit(length - 4));
    if ((int) crc.getValue() != b.getInt(length - 4)) {
      throw new IndexFormatException(file, "corrupt header (checksum mismatch)");
    }
  }

  /** The build id at bytes 40..71 of either version's header: ASCII, padded with zero bytes. */
  static String buildId(ByteBuffer b) {
    byte[] id = new byte[GroupFileFormat.BUILD_ID_BYTES];
    b.get(40, id);
    int length = 0;
    while (length < id.length && id[length] != 0) {
      length++;
    }
    return new String(id, 0, length, StandardCharsets.US_ASCII);
  }

  static GroupHeader decode(String file, ByteBuffer b) throws IndexFormatException {
    checkCrc(file, b);
    try {
      int attributeCount = b.getShort(10) & 0xFFFF;
      int width = b.getInt(16);
      long count = b.getLong(24);
      long time = b.getLong(32);
      byte[] sha = new byte[32];
      b.get(72, sha);
      b.position(GroupFileFormat.FIXED_HEADER_BYTES);
      String groupAttribute = readName(b);
      KeyType groupType = KeyType.fromCode(b.get());
      KeyValue groupKey = KeyValue.of(groupType, readBytes(b));
      List<KeyAttribute> attributes = new ArrayList<>();
      for (int i = 0; i < attributeCount; i++) {
        KeyType t = KeyType.fromCode(b.get());
        int roles = b.get();
        attributes.add(new KeyAttribute(readName(b), t, roles));
      }
      if (count < 0 || width < GroupFileFormat.RECORD_PREFIX_BYTES) {
        throw new IndexFormatException(file, "corrupt header (count " + count + ", width " + width + ")");
      }
      return new GroupHeader(
          groupAttribute,
          groupKey,
          attributes,
          width,
          count,
          time,
          buildId(b),
          sha);
    } catch (RuntimeException e) {
      throw new IndexFormatException(file, "corrupt header (" + e.getMessage() + ")");
    }
  }

  private static String readName(ByteBuffer b) {
    return new String(readBytes(b), StandardCharsets.UTF_8);
  }

  private static byte[] readBytes(ByteBuffer b) {
    byte[] v = new byte[b.getShort() & 0xFFFF];
    b.get(v);
    return v;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof GroupHeader && Arrays.equals(encode(), ((GroupHeader) o).encode());
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(encode());
  }
}
