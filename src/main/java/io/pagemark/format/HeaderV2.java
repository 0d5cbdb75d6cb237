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

/** Encodes and decodes the header of a version-2 group file (docs/format-v2.md, "Header"). */
final class HeaderV2 {
  static final int FIXED_BYTES = 128;

  /** A decoded header: what the group is, and how its records are laid out. */
  record Decoded(GroupHeader header, LayoutV2 layout) {}

  private HeaderV2() {}

  static byte[] encode(GroupHeader h, LayoutV2 layout) {
    try {
      ByteArrayOutputStream buf = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(buf);
      out.write(GroupFileFormat.MAGIC);
      out.writeShort(GroupFileFormat.VERSION_2);
      out.writeShort(h.attributes().size());
      out.writeInt(0); // header length, patched below
      out.writeInt(layout.width());
      out.writeInt(layout.inlineTies() ? 1 : 0);
      out.writeLong(h.entryCount());
      out.writeLong(h.buildTimeMillis());
      out.write(Arrays.copyOf(h.buildId().getBytes(StandardCharsets.US_ASCII), GroupFileFormat.BUILD_ID_BYTES));
      out.write(h.recordsSha256());
      out.writeLong(layout.runs());
      out.writeLong(layout.slots());
      out.writeInt(layout.tieTableCrc());
      out.writeInt(0);
      writeBytes(out, h.groupAttribute().getBytes(StandardCharsets.UTF_8));
      out.writeByte(h.groupKey().type().code());
      writeBytes(out, h.groupKey().bytes());
      for (int i = 0; i < h.attributes().size(); i++) {
        KeyAttribute a = h.attributes().get(i);
        ColumnCodec c = layout.codecs().get(i);
        out.writeByte(a.type().code());
        out.writeByte(a.roles());
        writeBytes(out, a.name().getBytes(StandardCharsets.UTF_8));
        out.writeByte(c.code());
        writeBytes(out, c.prefix());
        out.writeShort(c.p());
        out.writeByte(c.k());
        out.writeLong(c.base());
      }
      out.flush();
      int length = (buf.size() + 4 + 7) & ~7;
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

  private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
    if (b.length > GroupFileFormat.MAX_VALUE_BYTES) {
      throw new IllegalArgumentException("value of " + b.length + " bytes exceeds the format's 65535");
    }
    out.writeShort(b.length);
    out.write(b);
  }

  /** Decodes a whole header whose first 16 bytes {@link GroupHeader#peekLength} accepted. */
  static Decoded decode(String file, ByteBuffer b) throws IndexFormatException {
    int length = b.limit();
    if (length < FIXED_BYTES) {
      throw new IndexFormatException(file, "corrupt header (length " + length + ")");
    }
    GroupHeader.checkCrc(file, b);
    try {
      int attributeCount = b.getShort(10) & 0xFFFF;
      int width = b.getInt(16);
      int flags = b.getInt(20);
      long count = b.getLong(24);
      long time = b.getLong(32);
      byte[] sha = new byte[32];
      b.get(72, sha);
      long runs = b.getLong(104);
      long slots = b.getLong(112);
      int tieCrc = b.getInt(120);
      b.position(FIXED_BYTES).limit(length - 4);
      String groupAttribute = new String(readBytes(b), StandardCharsets.UTF_8);
      KeyValue groupKey = KeyValue.of(KeyType.fromCode(b.get()), readBytes(b));
      List<KeyAttribute> attributes = new ArrayList<>();
      List<ColumnCodec> codecs = new ArrayList<>();
      for (int i = 0; i < attributeCount; i++) {
        KeyType t = KeyType.fromCode(b.get());
        int roles = b.get();
        attributes.add(new KeyAttribute(new String(readBytes(b), StandardCharsets.UTF_8), t, roles));
        int code = b.get();
        byte[] prefix = readBytes(b);
        ColumnCodec c = new ColumnCodec(code, prefix, b.getShort() & 0xFFFF, b.get() & 0xFF, b.getLong());
        c.check();
        codecs.add(c);
      }
      if ((flags & ~1) != 0 || count < 0 || runs < 0 || slots < 0 || slots < 2 * runs || runs > count
          || slots > count || (flags & 1) != 0 && runs != 0) {
        throw new IndexFormatException(file, "corrupt header (flags " + flags + ", count " + count + ", " + runs
            + " tie runs of " + slots + " entries)");
      }
      LayoutV2 layout = new LayoutV2(codecs, (flags & 1) != 0, runs, slots, tieCrc);
      if (width != layout.width()) {
        throw new IndexFormatException(file, "corrupt header (record width " + width + ", the codecs make "
            + layout.width() + ")");
      }
      GroupHeader header = new GroupHeader(groupAttribute, groupKey, attributes, width, count, time,
          GroupHeader.buildId(b), sha);
      return new Decoded(header, layout);
    } catch (RuntimeException e) {
      throw new IndexFormatException(file, "corrupt header (" + e.getMessage() + ")");
    }
  }

  private static byte[] readBytes(ByteBuffer b) {
    byte[] v = new byte[b.getShort() & 0xFFFF];
    b.get(v);
    return v;
  }
}
